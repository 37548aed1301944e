/// Percent-escapes `string` for use as a key or value in a URL query or a form body, as
/// AFNetworking's `AFPercentEscapedStringFromString` does (RFC 3986, section 3.4).
///
/// Only the unreserved characters (`A`–`Z`, `a`–`z`, `0`–`9`, `-`, `.`, `_`, `~`) and the two
/// characters a query may carry unescaped, `?` and `/`, are kept. Everything else is escaped
/// byte by byte from its UTF-8 form with upper-case hexadecimal digits: the general delimiters
/// `:#[]@`, the sub-delimiters `!$&'()*+,;=`, space (`%20`), `%` itself (so already-escaped input
/// is escaped again), and every non-ASCII character.
///
/// AFNetworking escapes long strings in batches of 50 UTF-16 units, widened so that no batch
/// splits a composed character sequence. Escaping here works on whole Unicode scalars, so a
/// grapheme cluster or a surrogate pair can never be split and no batching is needed; the output
/// is the same.
public func percentEscaped(_ string: String) -> String {
    var escaped: [UInt8] = []
    escaped.reserveCapacity(string.utf8.count)
    for byte in string.utf8 {
        if QueryCharacters.isAllowed(byte) {
            escaped.append(byte)
        } else {
            escaped.append(UInt8(ascii: "%"))
            escaped.append(QueryCharacters.hexDigit(byte >> 4))
            escaped.append(QueryCharacters.hexDigit(byte & 0x0F))
        }
    }
    return String(decoding: escaped, as: UTF8.self)
}

/// The bytes `percentEscaped(_:)` leaves as they are.
private enum QueryCharacters {
    /// Whether `byte` is unreserved, `?` or `/`: Foundation's URL-query-allowed set without the
    /// delimiters `:#[]@!$&'()*+,;=`.
    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "?"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }

    /// The upper-case hexadecimal digit for `nibble` (0...15).
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
