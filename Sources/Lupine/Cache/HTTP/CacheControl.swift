/// The `Cache-Control` directives (RFC 9111 §5.2) a private cache acts on, read from a request or
/// a response.
///
/// Names are case-insensitive; an argument may be a token or a quoted string; unknown directives
/// are ignored. A delta-seconds argument above 2^31 saturates at 2^31 (§1.2.2). Where a
/// directive is repeated, the most restrictive value wins (§4.2.1); an invalid `max-age`
/// (`max-age=abc`) counts as `max-age=0`, since invalid freshness information means stale. An
/// invalid `max-stale` or `min-fresh` is ignored, which asks for nothing stale and nothing extra;
/// so is an invalid `stale-while-revalidate` or `stale-if-error` (RFC 5861), which then allows
/// nothing stale.
/// `no-cache="field"` and `private="field"` count as their bare forms.
struct CacheControl: Sendable, Equatable {
    /// The largest delta-seconds value kept (§1.2.2).
    static let saturatedSeconds = 2_147_483_648

    var maxAge: Int?
    /// `max-stale` without a value accepts any staleness: `Int.max`.
    var maxStale: Int?
    var minFresh: Int?
    var noCache = false
    var noStore = false
    var mustRevalidate = false
    var isPublic = false
    var isPrivate = false
    var hasSharedMaxAge = false
    var onlyIfCached = false
    /// `must-understand` (RFC 9111 §5.2.2.3), in a response.
    var mustUnderstand = false
    /// `immutable` (RFC 8246), in a response.
    var immutable = false
    /// `stale-while-revalidate=N` (RFC 5861 §3), meaningful in a response.
    var staleWhileRevalidate: Int?
    /// `stale-if-error=N` (RFC 5861 §4), in a response or a request.
    var staleIfError: Int?

    /// The directives of every `Cache-Control` line of `headers`.
    init(_ headers: HTTPHeaders) {
        for line in headers["Cache-Control"] {
            for (name, argument) in Self.directives(line) {
                self.apply(name: name, argument: argument)
            }
        }
    }

    /// A request's directives: `Pragma: no-cache` counts as `no-cache` only when the request has
    /// no `Cache-Control` (§5.4).
    init(request headers: HTTPHeaders) {
        self.init(headers)
        if !headers.contains(name: "Cache-Control") {
            self.noCache = headers["Pragma"].contains { line in
                Self.directives(line).contains { $0.name == "no-cache" }
            }
        }
    }

    private mutating func apply(name: String, argument: String?) {
        switch name {
        case "max-age":
            self.maxAge = min(self.maxAge ?? .max, argument.flatMap(Self.seconds) ?? 0)
        case "max-stale":
            // Bare: any staleness; with an invalid argument: ignored.
            guard let value = argument == nil ? Int.max : argument.flatMap(Self.seconds) else { return }
            self.maxStale = min(self.maxStale ?? .max, value)
        case "min-fresh":
            guard let value = argument.flatMap(Self.seconds) else { return }
            self.minFresh = max(self.minFresh ?? 0, value)
        case "stale-while-revalidate":
            guard let value = argument.flatMap(Self.seconds) else { return }
            self.staleWhileRevalidate = min(self.staleWhileRevalidate ?? .max, value)
        case "stale-if-error":
            guard let value = argument.flatMap(Self.seconds) else { return }
            self.staleIfError = min(self.staleIfError ?? .max, value)
        case "no-cache": self.noCache = true
        case "no-store": self.noStore = true
        case "must-revalidate": self.mustRevalidate = true
        case "public": self.isPublic = true
        case "private": self.isPrivate = true
        case "s-maxage": self.hasSharedMaxAge = true
        case "only-if-cached": self.onlyIfCached = true
        case "must-understand": self.mustUnderstand = true
        case "immutable": self.immutable = true
        default: break
        }
    }

    /// A delta-seconds value (digits only), saturated; `nil` when `text` is not one.
    static func seconds(_ text: String) -> Int? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        var value = 0
        for digit in digits {
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
            if value >= Self.saturatedSeconds { return Self.saturatedSeconds }
        }
        return value
    }

    /// The directives of one field line, names lower-cased, quoted arguments unquoted; a comma
    /// inside a quoted string does not end the directive.
    static func directives(_ line: String) -> [(name: String, argument: String?)] {
        var result: [(name: String, argument: String?)] = []
        var bytes = Substring(line).utf8[...]
        while !bytes.isEmpty {
            let nameEnd = bytes.firstIndex { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "=") } ?? bytes.endIndex
            let name = Self.trimmed(bytes[..<nameEnd]).lowercased()
            bytes = bytes[nameEnd...]
            var argument: String?
            if bytes.first == UInt8(ascii: "=") {
                bytes = Self.dropBlanks(bytes.dropFirst())
                if bytes.first == UInt8(ascii: "\"") {
                    var value: [UInt8] = []
                    bytes = bytes.dropFirst()
                    while let byte = bytes.popFirst(), byte != UInt8(ascii: "\"") {
                        value.append(byte == UInt8(ascii: "\\") ? (bytes.popFirst() ?? byte) : byte)
                    }
                    argument = String(decoding: value, as: UTF8.self)
                }
                let valueEnd = bytes.firstIndex(of: UInt8(ascii: ",")) ?? bytes.endIndex
                if argument == nil {
                    argument = Self.trimmed(bytes[..<valueEnd])
                }
                bytes = bytes[valueEnd...]
            }
            bytes = bytes.dropFirst()
            if !name.isEmpty {
                result.append((name, argument))
            }
        }
        return result
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func dropBlanks(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        bytes.drop(while: Self.isBlank)
    }

    private static func trimmed(_ bytes: Substring.UTF8View.SubSequence) -> String {
        var slice = Self.dropBlanks(bytes)
        while let last = slice.last, Self.isBlank(last) {
            slice = slice.dropLast()
        }
        return String(decoding: slice, as: UTF8.self)
    }
}
