import Foundation

/// IMF-fixdate formatting (`Sun, 06 Nov 1994 08:49:37 GMT`) for `Last-Modified` and cookie expiry.
enum HTTPDate {
    static func string(from date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

extension LupineTestServer {
    /// `date` as the server writes dates (IMF-fixdate, RFC 9110 §5.6.7), for tests that build
    /// the headers the server would send.
    public static func httpDate(_ date: Date) -> String {
        HTTPDate.string(from: date)
    }
}
