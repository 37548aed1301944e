import Foundation

/// HTTP dates in all three forms a recipient must accept (RFC 9110 §5.6.7): IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`)
/// and asctime (`Sun Nov  6 08:49:37 1994`), as `Date`, `Expires`, `Last-Modified` and
/// `Retry-After` carry them.
///
/// Each form is read as its grammar lays it out: single spaces, the comma, two-digit days and
/// clock fields, a four-digit year in IMF-fixdate and a two-digit one in RFC 850. A date shaped
/// otherwise (`Thu 18 Aug 2050 …` without the comma, doubled spaces, `18-Aug-2050`, a two-digit
/// year in IMF-fixdate) is no date: for `Expires` that means already expired (RFC 9111 §5.3),
/// as cache-tests.fyi checks. Names (the day, the month, `GMT`) are matched in any case, the
/// robustness RFC 9110 encourages where the shape is right.
///
/// Parsed by hand, byte by byte, with no `DateFormatter`: Foundation's formatter traps on some
/// bytes a server can send (a `Last-Modified` with non-ASCII bytes in its zone killed downloads),
/// and a cache reads several dates per response.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// The instant `text` names, or `nil` when it is none of the three forms (`0`, `-1`, garbage).
    /// A two-digit RFC 850 year more than 50 years after `now` is taken as the previous century.
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        // Spaces and tabs around a field value are not part of it (RFC 9110 §5.5).
        let bytes = Array(text.utf8.prefix(129).drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }.reversed())
        guard bytes.count <= 64 else { return nil }
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")) else {
            // asctime: `Sun Nov  6 08:49:37 1994` (the day padded with a space).
            guard bytes.count == 24, Self.days.contains(Self.name(bytes[0..<3])), bytes[3] == 32, bytes[7] == 32, bytes[10] == 32,
                bytes[19] == 32, let month = Self.month(bytes[4..<7]),
                let day = bytes[8] == 32 ? Self.number(bytes[9..<10]) : Self.number(bytes[8..<10]),
                let year = Self.number(bytes[20..<24])
            else { return nil }
            return Self.instant(year: year, month: month, day: day, clock: bytes[11..<19])
        }
        let rest = bytes[(comma + 1)...]
        let start = rest.startIndex
        if comma == 3, Self.days.contains(Self.name(bytes[0..<3])) {
            // IMF-fixdate: `, 06 Nov 1994 08:49:37 GMT` after the day's name.
            guard rest.count == 25, rest[start] == 32, rest[start + 3] == 32, rest[start + 7] == 32, rest[start + 12] == 32,
                rest[start + 21] == 32, Self.name(rest[(start + 22)...]) == "gmt",
                let day = Self.number(rest[(start + 1)..<(start + 3)]), let month = Self.month(rest[(start + 4)..<(start + 7)]),
                let year = Self.number(rest[(start + 8)..<(start + 12)])
            else { return nil }
            return Self.instant(year: year, month: month, day: day, clock: rest[(start + 13)..<(start + 21)])
        }
        // RFC 850: `, 06-Nov-94 08:49:37 GMT` after the day's full name.
        guard Self.longDays.contains(Self.name(bytes[..<comma])), rest.count == 23, rest[start] == 32, rest[start + 3] == 45,
            rest[start + 7] == 45, rest[start + 10] == 32, rest[start + 19] == 32, Self.name(rest[(start + 20)...]) == "gmt",
            let day = Self.number(rest[(start + 1)..<(start + 3)]), let month = Self.month(rest[(start + 4)..<(start + 7)]),
            var year = Self.number(rest[(start + 8)..<(start + 10)])
        else { return nil }
        year += 2000
        // `now` may come from a stored record: a year beyond any date's is clamped, not a trap.
        let nowYear = Int(max(-1e6, min(1e6, now.timeIntervalSince1970 / 31_556_952))) + 1970
        if year > nowYear + 50 {
            year -= 100
        }
        return Self.instant(year: year, month: month, day: day, clock: rest[(start + 11)..<(start + 19)])
    }

    /// The instant of a checked day and `HH:MM:SS` (a leap second read as :59), or `nil`.
    private static func instant(year: Int, month: Int, day: Int, clock: ArraySlice<UInt8>) -> Date? {
        let start = clock.startIndex
        guard clock[start + 2] == 58, clock[start + 5] == 58, let hour = Self.number(clock[start..<(start + 2)]),
            let minute = Self.number(clock[(start + 3)..<(start + 5)]), let second = Self.number(clock[(start + 6)..<(start + 8)]),
            hour < 24, minute < 60, second <= 60, day >= 1, day <= CivilDate.daysIn(month: month, year: year)
        else { return nil }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + min(second, 59)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// ASCII letters lower-cased (other bytes kept), to match names in any case.
    private static func name(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// The month (1 to 12) `bytes` names in any case, or `nil`.
    private static func month(_ bytes: ArraySlice<UInt8>) -> Int? {
        Self.months.firstIndex(of: Self.name(bytes)).map { $0 + 1 }
    }

    /// Whether a response's `Last-Modified` is a strong validator, which `If-Range` may carry: it
    /// must be at least one second before the response's own `Date` (RFC 9110 §8.8.2.2).
    static func isStrongValidator(lastModified: String, date: String?) -> Bool {
        guard let modified = Self.parse(lastModified), let date = date.flatMap({ Self.parse($0) }) else { return false }
        return date.timeIntervalSince(modified) >= 1
    }

    /// The decimal number of ASCII digits only, or `nil`.
    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 48) }
    }
}
