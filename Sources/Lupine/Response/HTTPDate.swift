import Foundation

/// HTTP dates in all three forms a recipient must accept (RFC 9110 §5.6.7): IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`)
/// and asctime (`Sun Nov  6 08:49:37 1994`), as `Date`, `Expires`, `Last-Modified` and
/// `Retry-After` carry them.
///
/// Parsed by hand, byte by byte, with no `DateFormatter`: Foundation's formatter traps on some
/// bytes a server can send (a `Last-Modified` with non-ASCII bytes in its zone killed downloads),
/// and a cache reads several dates per response.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The instant `text` names, or `nil` when it is none of the three forms (`0`, `-1`, garbage).
    /// A two-digit RFC 850 year more than 50 years after `now` is taken as the previous century.
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        let fields = text.split { $0 == " " || $0 == "," || $0 == "-" }.map(String.init)
        let day: String, month: String, year: String, time: String
        switch fields.count {
        case 6 where fields[5] == "GMT":
            (day, month, year, time) = (fields[1], fields[2], fields[3], fields[4])
        case 5:
            (month, day, time, year) = (fields[1], fields[2], fields[3], fields[4])
        default:
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let monthIndex = Self.months.firstIndex(of: month.lowercased()),
            let dayNumber = Self.number(day, digits: 1...2), let hour = Self.number(clock[0], digits: 2...2),
            let minute = Self.number(clock[1], digits: 2...2), let second = Self.number(clock[2], digits: 2...2),
            var yearNumber = Self.number(year, digits: 2...4), year.count != 3,
            hour < 24, minute < 60, second <= 60,
            dayNumber >= 1, dayNumber <= CivilDate.daysIn(month: monthIndex + 1, year: year.count == 2 ? 2000 : yearNumber)
        else { return nil }
        if year.count == 2 {
            yearNumber += 2000
            // `now` may come from a stored record: a year beyond any date's is clamped, not a trap.
            let nowYear = Int(max(-1e6, min(1e6, now.timeIntervalSince1970 / 31_556_952))) + 1970
            if yearNumber > nowYear + 50 {
                yearNumber -= 100
            }
        }
        let days = CivilDate.daysSinceEpoch(year: yearNumber, month: monthIndex + 1, day: dayNumber)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + min(second, 59)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Whether a response's `Last-Modified` is a strong validator, which `If-Range` may carry: it
    /// must be at least one second before the response's own `Date` (RFC 9110 §8.8.2.2).
    static func isStrongValidator(lastModified: String, date: String?) -> Bool {
        guard let modified = Self.parse(lastModified), let date = date.flatMap({ Self.parse($0) }) else { return false }
        return date.timeIntervalSince(modified) >= 1
    }

    private static func number(_ text: some StringProtocol, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text)
    }
}
