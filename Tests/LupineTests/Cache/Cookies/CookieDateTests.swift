import Foundation
import Testing

@testable import Lupine

/// RFC 6265 §5.1.1's cookie-date algorithm, which accepts far more than the three forms
/// `HTTPDate` reads.
@Suite("Cookie dates (RFC 6265 §5.1.1)")
struct CookieDateTests {
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),  // IMF-fixdate
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),  // RFC 850, two-digit year
        ("Sun Nov  6 08:49:37 1994", 784_111_777),  // asctime
        ("06 nov 1994 8:49:37", 784_111_777),  // no weekday, one-digit hour, lower case
        ("Sun, 06 November 1994 08:49:37 UTC+7", 784_111_777),  // a long month, zone ignored
        ("1994 Nov 06 08:49:37", 784_111_777),  // year first: a 4-digit token is no day
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Wed, 09 Jun 2021 10:18:14 GMT", 1_623_233_894),
        ("Thu, 06 Nov 69 08:49:37 GMT", 3_150_953_377),  // 69 is 2069
        ("Thu, 29 Feb 2024 00:00:00 GMT", 1_709_164_800),
        ("Mon, 01 Jan 1601 00:00:00 GMT", -11_644_473_600),
    ])
    func readsTheFormsServersWrite(text: String, seconds: Int) {
        #expect(CookieDate.parse(text) == Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    @Test(arguments: [
        "",
        "garbage",
        "1994-11-06 08:49:37",  // no month name
        "Sun, 06 Nov 1994",  // no time
        "Sun, 31 Apr 2021 08:49:37 GMT",  // no such day
        "Mon, 29 Feb 2021 08:49:37 GMT",  // not a leap year
        "Sun, 06 Nov 1600 08:49:37 GMT",  // before 1601
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:37 GMT",
        "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 06 Növ 1994 08:49:37 GMT",  // non-ASCII where the month should be
        "Sun, 06 Nov 1994 08:49:377 GMT",  // a three-digit second is no time
        String(repeating: "9", count: 10_000),
    ])
    func refusesWhatIsNotADate(text: String) {
        #expect(CookieDate.parse(text) == nil)
    }
}
