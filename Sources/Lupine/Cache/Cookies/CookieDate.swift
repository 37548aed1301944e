import Foundation

/// The cookie-date algorithm of RFC 6265 §5.1.1, which reads the many forms servers write in
/// `Expires` (`Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`,
/// `Sun Nov  6 08:49:37 1994`, and worse): the first token that looks like a time, a day of the
/// month, a month and a year, in that order of preference, whatever separates them.
enum CookieDate {
    /// The instant `text` names, or `nil` when it lacks a part or a part is out of range
    /// (a year before 1601, the 31st of April, 24:00:00).
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in Self.tokens(Array(text.utf8)) {
            if time == nil, let found = Self.time(token) {
                time = found
            } else if day == nil, let found = Self.digits(token, minimum: 1, maximum: 2) {
                day = found
            } else if month == nil, let found = Self.month(token) {
                month = found
            } else if year == nil, let found = Self.digits(token, minimum: 2, maximum: 4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) {
            year += 1900
        } else if (0...69).contains(year) {
            year += 2000
        }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
            day <= CivilDate.daysIn(month: month, year: year)
        else { return nil }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The date-tokens of `bytes`: runs of non-delimiters (§5.1.1's `delimiter` is tab, space to
    /// `/`, `;` to `@`, `[` to backtick and `{` to `~`).
    private static func tokens(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: { byte in
            byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
                || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
        })
    }

    /// The number that `minimum` to `maximum` digits at the start of `token` make, when what
    /// follows them (if anything) starts with a non-digit.
    private static func digits(_ token: ArraySlice<UInt8>, minimum: Int, maximum: Int) -> Int? {
        let count = token.prefix(while: Self.isDigit).count
        guard (minimum...maximum).contains(count) else { return nil }
        return token.prefix(count).reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// `hms-time`: `h:m:s` with one or two digits each, then nothing or a non-digit.
    private static func time(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var rest = token
        var parts: [Int] = []
        for index in 0..<3 {
            let count = rest.prefix(while: Self.isDigit).count
            guard (1...2).contains(count) else { return nil }
            parts.append(rest.prefix(count).reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
            rest = rest.dropFirst(count)
            if index < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
        }
        return (parts[0], parts[1], parts[2])
    }

    /// The month (1 to 12) whose English abbreviation, in any case, starts `token`.
    private static func month(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
