import Crypto
import Foundation
import Testing

@testable import Lupine

/// HTTP dates in their three forms (RFC 9110 §5.6.7), and the digest that names cache files.
@Suite struct HTTPDateTests {
    private let instant = Date(timeIntervalSince1970: 784_111_777)

    @Test func theThreeFormsNameTheSameInstant() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == self.instant)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: CacheFixture.now) == self.instant)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == self.instant)
    }

    /// `now` may come from a stored record a hostile hand rewrote: a time no year holds is
    /// clamped, never a trap (the audit's finding).
    @Test func aTwoDigitYearBesideAnAbsurdNowIsNoTrap() {
        for now in [1e300, -1e300] {
            _ = HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: Date(timeIntervalSince1970: now))
        }
    }

    @Test func readsBackWhatFoundationsFormatterWrites() {
        for offset in stride(from: -400_000_000.0, through: 400_000_000, by: 37_777_777) {
            let text = CacheFixture.httpDate(offset)
            #expect(HTTPDate.parse(text) == CacheFixture.now.addingTimeInterval(offset), "\(text)")
        }
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 12:00:00 GMT") == Date(timeIntervalSince1970: 1_709_208_000))
    }

    /// The fuzzer's input that trapped Foundation's `DateFormatter` (issue 29): bytes that are not
    /// UTF-8 inside the zone. The library's one HTTP-date parser reads no formatter.
    @Test func bytesThatTrappedDateFormatterAreNoDate() {
        let bytes = Array("Wed, 22 Oct 2015 07:28:00".utf8) + [0xD6, 0xB8] + Array("MT".utf8)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(HTTPDate.parse(text) == nil)
        #expect(!HTTPDate.isStrongValidator(lastModified: text, date: "Thu, 22 Oct 2015 07:28:01 GMT"))
        #expect(HTTPDate.isStrongValidator(lastModified: "Wed, 22 Oct 2015 07:28:00 GMT", date: "Thu, 22 Oct 2015 07:28:01 GMT"))
    }

    @Test func twoDigitYearsMoreThanFiftyYearsAheadAreTheLastCentury() {
        let now = CacheFixture.now  // 2023
        #expect(HTTPDate.parse("Monday, 06-Nov-73 00:00:00 GMT", now: now).map { Calendar(identifier: .gregorian).component(.year, from: $0) } == 2073)
        #expect(HTTPDate.parse("Sunday, 06-Nov-74 00:00:00 GMT", now: now).map { Calendar(identifier: .gregorian).component(.year, from: $0) } == 1974)
    }

    /// Each form as its grammar lays it out (cache-tests.fyi's `freshness-expires-invalid-*`): an
    /// `Expires` shaped otherwise is already expired. Names match in any case.
    @Test func eachFormIsReadAsItsGrammarLaysItOut() {
        let shapes = [
            "Thu, 18 Aug 50 02:01:18 GMT", "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT", "Thu,  18 Aug 2050 02:01:18 GMT",
            "Thu, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 UTC",
            "Thursday, 18 Aug 2050 02:01:18 GMT", "Thu, 18-Aug-50 02:01:18 GMT", "Thursday, 18-Aug-2050 02:01:18 GMT", "Thu Aug 8 02:01:18 2050",
            "Thu Aug  8 02:01:18 50", "Xyz, 18 Aug 2050 02:01:18 GMT", "Thu,\t18 Aug 2050 02:01:18 GMT",
        ]
        for text in shapes {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
        let instant = HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT")
        #expect(instant != nil)
        // Spaces and tabs around the value are not part of it (RFC 9110 §5.5; a hostile pass
        // found a trailing space made a resumed download skip its If-Range).
        let spelt = [
            "THU, 18 AUG 2050 02:01:18 gmt", "thu, 18 aug 2050 02:01:18 gMT", "Thursday, 18-Aug-50 02:01:18 GMT", "Thu Aug 18 02:01:18 2050",
            " Thu, 18 Aug 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 GMT \t", "\tThursday, 18-Aug-50 02:01:18 GMT ",
        ]
        for text in spelt {
            #expect(HTTPDate.parse(text, now: CacheFixture.now) == instant, "\(text)")
        }
        #expect(HTTPDate.parse("Thu Aug  8 02:01:18 2050") == HTTPDate.parse("Mon, 08 Aug 2050 02:01:18 GMT"))
        #expect(HTTPDate.isStrongValidator(lastModified: "Tue, 01 Jan 2019 00:00:00 GMT ", date: "Wed, 02 Jan 2019 00:00:00 GMT"))
    }

    @Test func invalidDatesAreNil() {
        let bad = [
            "", "0", "-1", "now", "Sun, 31 Feb 2024 00:00:00 GMT", "Sun, 29 Feb 2023 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:60:37 GMT", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 1994 08:49:37 GMT\u{0}", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, ０６ Nov 1994 08:49:37 GMT", String(repeating: "Sun, ", count: 10_000),
        ]
        for text in bad {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }

    @Test func theDigestIsSHA256() {
        for text in ["", "abc", String(repeating: "a", count: 55), String(repeating: "b", count: 64), "http://ex.test/ü?x=1#f" + String(repeating: "z", count: 1000)] {
            let expected = SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(CacheDigest.hex(text) == expected)
        }
    }

    @Test func fileNamesNeverCarryURLText() throws {
        let url = try #require(URL(string: "http://user:secret@EXAMPLE.test:8080/../etc/passwd?q=%00#frag"))
        let key = try #require(CacheKey.primary(url))
        #expect(key == "http://example.test:8080/../etc/passwd?q=%00")
        let name = CacheKey.fileName(primary: key, variant: CacheDigest.hex(""))
        #expect(DiskCacheIndex.isEntryName(name))
        #expect(name.allSatisfy { $0.isHexDigit || $0 == "-" || $0 == "." || $0 == "l" || $0 == "p" })
        let ftp = try #require(URL(string: "ftp://example.test/a"))
        let bare = try #require(URL(string: "http://example.test"))
        #expect(CacheKey.primary(ftp) == nil)
        #expect(CacheKey.primary(bare) == "http://example.test/")
        for text in ["http://[::1]:8080/a", "https://EXAMPLE.test:443/x?y#z", "http://ü.test/ä", "http://example.test/%0D%0A%00"] {
            let url = try #require(URL(string: text))
            #expect(CacheKey.primary(url) != nil, "\(text)")
        }
        #expect(CacheKey.primary(try #require(URL(string: "https://EXAMPLE.test:443/x?y#z"))) == "https://example.test/x?y")
    }
}
