import Foundation

/// A `Content-Range` field as a resumed download reads it (RFC 9110 §14.4): `bytes
/// first-last/complete`, `bytes first-last/*` or, with a `416`, `bytes */complete`.
///
/// Lenient where a server's spelling varies (blanks around numbers, the unit's case) and strict
/// where the file is at stake: a number that does not fit, a negative one or a last byte before
/// the first gives no position at all.
struct ContentRange: Equatable {
    /// The first byte, when the field names a range.
    let first: Int?
    /// The last byte, when the field names a range.
    let last: Int?
    /// The complete length, when the field gives it.
    let completeLength: Int?

    /// A range as given.
    init(first: Int?, last: Int?, completeLength: Int?) {
        (self.first, self.last, self.completeLength) = (first, last, completeLength)
    }

    /// Reads `text`; `nil` when it is absent or not in `bytes` units.
    init?(_ text: String?) {
        guard let text, text.utf8.count > 6, text.prefix(6).lowercased() == "bytes " else { return nil }
        let rest = text.dropFirst(6)
        let halves = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let range = halves[0].trimmingCharacters(in: .whitespaces)
        let bounds = range.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { Self.number($0) }
        if bounds.count == 2, let first = bounds[0], let last = bounds[1], first <= last {
            (self.first, self.last) = (first, last)
        } else {
            (self.first, self.last) = (nil, nil)
        }
        self.completeLength = halves.count == 2 ? Self.number(halves[1]) : nil
    }

    /// Where the body ends: its complete length, or else the byte after the last (`bytes
    /// 500-999/*` ends at 1000).
    var end: Int? {
        self.completeLength ?? self.last.flatMap { $0 < Int.max ? $0 + 1 : nil }
    }

    /// A non-negative decimal number, blanks around it allowed.
    private static func number(_ text: Substring) -> Int? {
        let digits = text.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(digits)
    }
}
