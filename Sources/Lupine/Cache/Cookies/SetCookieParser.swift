import Foundation

/// One `Set-Cookie` field value read by RFC 6265 §5.2, before the storage model (§5.3) judges
/// it against the request.
struct SetCookie: Equatable {
    var name: String
    var value: String
    /// The expiry Max-Age or Expires gave (Max-Age winning); `nil` for a session cookie.
    var expiresAt: Date?
    /// The last non-empty `Domain` attribute, canonical (an empty one is ignored, as §5.2.3 advises).
    var domain: String?
    /// The `Path` attribute; `nil` when absent or not starting with `/` (the default path applies).
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: SameSite?

    /// The most bytes a name and value may have together (RFC 6265bis §5.6 step 4), and the most
    /// an attribute value may have before the attribute is ignored (§5.6 step 5).
    static let maximumNameValueBytes = 4096
    static let maximumAttributeValueBytes = 1024

    /// Reads `text` at `now` (which Max-Age counts from), or `nil` when the cookie is to be ignored:
    /// no `=` in its name-value pair, an empty name (RFC 6265; RFC 6265bis would keep a nameless
    /// cookie, which servers read inconsistently), a control character other than tab anywhere
    /// (RFC 6265bis), or a name and value longer than 4096 bytes together. Other bytes, non-ASCII
    /// ones included, are kept as they came.
    static func parse(_ text: String, now: Date) -> SetCookie? {
        guard !text.unicodeScalars.contains(where: { $0 != "\t" && $0.properties.generalCategory == .control }) else {
            return nil
        }
        let pairEnd = text.firstIndex(of: ";") ?? text.endIndex
        let pair = text[..<pairEnd]
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        let name = Self.trimmed(pair[..<equals])
        let value = Self.trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maximumNameValueBytes else { return nil }
        var cookie = SetCookie(name: name, value: value)
        var maxAge: Date?
        var expires: Date?
        for attribute in text[pairEnd...].split(separator: ";") {
            let equals = attribute.firstIndex(of: "=")
            let key = Self.trimmed(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
            let value = equals.map { Self.trimmed(attribute[attribute.index(after: $0)...]) } ?? ""
            guard value.utf8.count <= Self.maximumAttributeValueBytes else { continue }
            switch key {
            case "expires":
                expires = CookieDate.parse(value) ?? expires
            case "max-age":
                maxAge = Self.maxAge(value, now: now) ?? maxAge
            case "domain" where !value.isEmpty:
                cookie.domain = CookieDomain.canonical(value)
            case "path":
                cookie.path = value.hasPrefix("/") ? value : nil
            case "secure":
                cookie.isSecure = true
            case "httponly":
                cookie.isHTTPOnly = true
            case "samesite":
                cookie.sameSite = ["strict": .strict, "lax": .lax, "none": .none][value.lowercased()]
            default:
                continue
            }
        }
        cookie.expiresAt = maxAge ?? expires
        return cookie
    }

    /// §5.2.2: the expiry a Max-Age value gives, `nil` when it is not an optional `-` and digits;
    /// zero or less expires the cookie at once; more than a date can hold is the farthest date.
    private static func maxAge(_ text: String, now: Date) -> Date? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        guard !text.hasPrefix("-"), digits.contains(where: { $0 != "0" }) else { return .distantPast }
        // In floating point, which neither overflows nor traps whatever `now` is.
        guard let seconds = TimeInterval(digits), seconds < Date.distantFuture.timeIntervalSince(now) else {
            return .distantFuture
        }
        return now.addingTimeInterval(seconds)
    }

    /// `text` without leading and trailing spaces and tabs.
    private static func trimmed(_ text: Substring) -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(text[first...last])
    }
}
