/// A strict RFC 8259 parser that builds ``JSONResponseSerializer``'s `Sendable` values straight
/// from UTF-8 bytes.
///
/// `JSONSerialization` builds Foundation objects that must then be cast, one dynamic cast per
/// value, into `Sendable` ones; on Linux those casts try Objective-C bridging and cost more than
/// the parse itself. This parser makes the final values directly: objects `[String: any Sendable]`,
/// arrays `[any Sendable]`, strings, `Bool`, numbers `Int` (`UInt64` above `Int.max`, `Double` with
/// a fraction, an exponent, or beyond both), and `null` ``JSONNull``.
struct JSONValueParser {
    /// Why the bytes are not JSON, with the byte offset where that became clear.
    struct Failure: Error, Sendable {
        let reason: String
    }

    /// The deepest nesting of arrays and objects accepted, as `JSONSerialization`'s limit.
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private let removingNulls: Bool
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>, removingNulls: Bool) {
        self.bytes = bytes
        self.removingNulls = removingNulls
    }

    /// Parses one JSON text. Without `allowingFragments` it must be an object or an array. With
    /// `removingNulls`, `null` values are left out of objects and arrays at every depth.
    static func parse(_ bytes: [UInt8], allowingFragments: Bool, removingNulls: Bool) throws(Failure) -> any Sendable {
        let result: Result<any Sendable, Failure> = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONValueParser(bytes: buffer, removingNulls: removingNulls)
            return Result { () throws(Failure) in try parser.parseDocument(allowingFragments: allowingFragments) }
        }
        return try result.get()
    }

    private mutating func parseDocument(allowingFragments: Bool) throws(Failure) -> any Sendable {
        // A UTF-8 byte order mark is tolerated, as `JSONSerialization` does.
        if self.bytes.count >= 3 && self.bytes[0] == 0xEF && self.bytes[1] == 0xBB && self.bytes[2] == 0xBF {
            self.index = 3
        }
        self.skipWhitespace()
        guard let first = self.peek() else { throw self.failure("no value") }
        if !allowingFragments && first != UInt8(ascii: "{") && first != UInt8(ascii: "[") {
            throw self.failure("the top level is not an object or an array (fragments are not allowed)")
        }
        let value = try self.parseValue()
        self.skipWhitespace()
        guard self.index == self.bytes.count else { throw self.failure("unexpected bytes after the value") }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(Failure) -> any Sendable {
        guard let byte = self.peek() else { throw self.failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try self.parseObject()
        case UInt8(ascii: "["): return try self.parseArray()
        case UInt8(ascii: "\""): return try self.parseString()
        case UInt8(ascii: "t"): try self.expectLiteral("true"); return true
        case UInt8(ascii: "f"): try self.expectLiteral("false"); return false
        case UInt8(ascii: "n"): try self.expectLiteral("null"); return JSONNull()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try self.parseNumber()
        default: throw self.failure("unexpected character \(Self.describe(byte))")
        }
    }

    private mutating func parseObject() throws(Failure) -> [String: any Sendable] {
        try self.enterContainer()
        self.skipWhitespace()
        if self.consume(UInt8(ascii: "}")) {
            self.depth -= 1
            return [:]
        }
        // Room for a typical small object at once, rather than growing through 1, 2, 4 and 8.
        var object = [String: any Sendable](minimumCapacity: 8)
        while true {
            self.skipWhitespace()
            guard self.peek() == UInt8(ascii: "\"") else { throw self.failure("expected a string key") }
            let key = try self.parseString()
            self.skipWhitespace()
            guard self.consume(UInt8(ascii: ":")) else { throw self.failure("expected ':' after a key") }
            self.skipWhitespace()
            let value = try self.parseValue()
            if !(self.removingNulls && value is JSONNull) {
                object[key] = value
            }
            self.skipWhitespace()
            if self.consume(UInt8(ascii: ",")) { continue }
            guard self.consume(UInt8(ascii: "}")) else { throw self.failure("expected ',' or '}' in an object") }
            self.depth -= 1
            return object
        }
    }

    private mutating func parseArray() throws(Failure) -> [any Sendable] {
        try self.enterContainer()
        var array: [any Sendable] = []
        self.skipWhitespace()
        if self.consume(UInt8(ascii: "]")) {
            self.depth -= 1
            return array
        }
        while true {
            self.skipWhitespace()
            let value = try self.parseValue()
            if !(self.removingNulls && value is JSONNull) {
                array.append(value)
            }
            self.skipWhitespace()
            if self.consume(UInt8(ascii: ",")) { continue }
            guard self.consume(UInt8(ascii: "]")) else { throw self.failure("expected ',' or ']' in an array") }
            self.depth -= 1
            return array
        }
    }

    /// Steps over the opening bracket, refusing nesting deeper than ``maximumDepth``.
    private mutating func enterContainer() throws(Failure) {
        guard self.depth < Self.maximumDepth else {
            throw self.failure("arrays and objects nested deeper than \(Self.maximumDepth)")
        }
        self.depth += 1
        self.index += 1
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard self.bytes.count - self.index >= expected.count,
            self.bytes[self.index..<self.index + expected.count].elementsEqual(expected)
        else { throw self.failure("invalid literal (expected \(literal))") }
        self.index += expected.count
    }

    // MARK: Strings

    private mutating func parseString() throws(Failure) -> String {
        let start = self.index + 1
        let bytes = self.bytes
        // The fast path: no escapes, so the string is the bytes between the quotes. The index
        // lives in a local while scanning, where the compiler can keep it in a register.
        var end = start
        var isASCII = true
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                self.index = end + 1
                let utf8 = UnsafeBufferPointer(rebasing: bytes[start..<end])
                // ASCII is valid UTF-8 already; only other bytes need the full validation.
                return isASCII ? String(decoding: utf8, as: UTF8.self) : try self.validatedString(utf8)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else {
                self.index = end
                throw self.failure("unescaped control character \(Self.describe(byte)) in a string")
            }
            isASCII = isASCII && byte < 0x80
            end += 1
        }
        self.index = end
        var unescaped = Array(self.bytes[start..<self.index])
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try unescaped.withUnsafeBufferPointer { buffer throws(Failure) in try self.validatedString(buffer) }
            case UInt8(ascii: "\\"):
                try self.appendEscape(to: &unescaped)
            case ..<0x20:
                self.index -= 1
                throw self.failure("unescaped control character \(Self.describe(byte)) in a string")
            default:
                unescaped.append(byte)
            }
        }
        throw self.failure("unterminated string")
    }

    private func validatedString(_ utf8: UnsafeBufferPointer<UInt8>) throws(Failure) -> String {
        guard let string = String(validating: utf8, as: UTF8.self) else { throw self.failure("invalid UTF-8 in a string") }
        return string
    }

    /// Decodes the escape after a backslash and appends its UTF-8 bytes.
    private mutating func appendEscape(to output: inout [UInt8]) throws(Failure) {
        guard let byte = self.peek() else { throw self.failure("unterminated escape") }
        self.index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            let scalar = try self.parseUnicodeEscape()
            UTF8.encode(scalar) { output.append($0) }
        default:
            self.index -= 1
            throw self.failure("invalid escape \\\(Self.describe(byte))")
        }
    }

    /// The scalar of a `\uXXXX` escape, joining a surrogate pair written as two escapes.
    private mutating func parseUnicodeEscape() throws(Failure) -> Unicode.Scalar {
        let first = try self.parseHexQuad()
        switch first {
        case 0xD800...0xDBFF:
            guard self.bytes.count - self.index >= 2, self.bytes[self.index] == UInt8(ascii: "\\"),
                self.bytes[self.index + 1] == UInt8(ascii: "u")
            else { throw self.failure("a high surrogate without its low surrogate") }
            self.index += 2
            let second = try self.parseHexQuad()
            guard (0xDC00...0xDFFF).contains(second),
                let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            else { throw self.failure("a high surrogate without its low surrogate") }
            return scalar
        case 0xDC00...0xDFFF:
            throw self.failure("a low surrogate without its high surrogate")
        default:
            guard let scalar = Unicode.Scalar(first) else { throw self.failure("invalid \\u escape") }
            return scalar
        }
    }

    private mutating func parseHexQuad() throws(Failure) -> UInt32 {
        guard self.bytes.count - self.index >= 4 else { throw self.failure("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = self.bytes[self.index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw self.failure("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            self.index += 1
        }
        return value
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as RFC 8259 §6 writes it.
    private mutating func parseNumber() throws(Failure) -> any Sendable {
        let start = self.index
        _ = self.consume(UInt8(ascii: "-"))
        if self.consume(UInt8(ascii: "0")) {
            if let next = self.peek(), Self.isDigit(next) { throw self.failure("a number with a leading zero") }
        } else if self.consumeDigits() == 0 {
            throw self.failure("a number without digits")
        }
        var isInteger = true
        if self.consume(UInt8(ascii: ".")) {
            isInteger = false
            guard self.consumeDigits() > 0 else { throw self.failure("a number without digits after '.'") }
        }
        if self.consume(UInt8(ascii: "e")) || self.consume(UInt8(ascii: "E")) {
            isInteger = false
            _ = self.consume(UInt8(ascii: "+")) || self.consume(UInt8(ascii: "-"))
            guard self.consumeDigits() > 0 else { throw self.failure("a number without digits in its exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: self.bytes[start..<self.index]), as: UTF8.self)
        if isInteger {
            if let integer = Int(text) { return integer }
            if let unsigned = UInt64(text) { return unsigned }
        }
        guard let double = Double(text), double.isFinite else { throw self.failure("a number out of range") }
        return double
    }

    /// Steps over a run of digits and says how many there were.
    private mutating func consumeDigits() -> Int {
        let start = self.index
        while let byte = self.peek(), Self.isDigit(byte) {
            self.index += 1
        }
        return self.index - start
    }

    // MARK: Bytes

    private func peek() -> UInt8? {
        self.index < self.bytes.count ? self.bytes[self.index] : nil
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard self.peek() == byte else { return false }
        self.index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = self.peek(),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
        {
            self.index += 1
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func failure(_ what: String) -> Failure {
        Failure(reason: "\(what) at byte \(self.index)")
    }
}
