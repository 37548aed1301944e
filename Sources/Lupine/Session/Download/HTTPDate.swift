import Foundation

/// HTTP dates (RFC 9110 §5.6.7), as `Date` and `Last-Modified` carry them.
enum HTTPDate {
    /// The instant `text` names in the preferred IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`),
    /// or `nil` when it is not one.
    static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }

    /// Whether a response's `Last-Modified` is a strong validator, which `If-Range` may carry: it
    /// must be at least one second before the response's own `Date` (RFC 9110 §8.8.2.2).
    static func isStrongValidator(lastModified: String, date: String?) -> Bool {
        guard let modified = Self.parse(lastModified), let date = date.flatMap(Self.parse) else { return false }
        return date.timeIntervalSince(modified) >= 1
    }
}
