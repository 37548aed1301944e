import Foundation
import Lupine
import Testing

/// A jar stays bounded whatever servers send: per-domain and total limits (expired cookies go
/// first, then the least recently used), and oversized or malformed cookies are ignored.
@Suite("Cookie limits")
struct CookieLimitsTests {
    @Test func aTenThousandCookieFloodFromOneHostKeepsTheLatestFifty() {
        let storage = CookieStorage()
        storage.store((0..<10_000).map { "c\($0)=\($0)" }, from: "http://flood.example.com/")
        let names = Set(storage.allCookies.map(\.name))
        #expect(names == Set((9_950..<10_000).map { "c\($0)" }))
        // A flood over the parent domain is bounded per domain as well.
        storage.store((0..<10_000).map { "d\($0)=1; Domain=example.com; Path=/p\($0)" }, from: "http://flood.example.com/")
        #expect(storage.allCookies.count == 100)
        #expect(storage.header(for: "http://flood.example.com/")?.split(separator: ";").count == 50)
    }

    @Test func aCookieFileOverTheLimitsKeepsItsLatestCookiesItsFirstLines() {
        // curl lists the latest created first and limits neither a domain nor the total.
        let lines =
            (0..<80).map { "a.example\tFALSE\t/\tFALSE\t0\tc\($0)\tv" }
            + (0..<4_000).map { "h\($0).example\tFALSE\t/\tFALSE\t0\tt\($0)\tv" }
        let storage = CookieStorage()
        #expect(storage.importNetscapeText(lines.joined(separator: "\n")).isEmpty)
        let perDomain = Set(storage.allCookies.filter { $0.domain == "a.example" }.map(\.name))
        #expect(perDomain == Set((0..<50).map { "c\($0)" }))
        // Past the total, the oldest (the last lines) went: the latest cookies stay.
        let names = Set(storage.allCookies.map(\.name))
        #expect(names.count <= 3_000 && names.contains("t0") && !names.contains("t3999"))
        // Written back, they keep their order: the latest first.
        let written = storage.netscapeText().split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(written.first?.contains("\tc0\t") == true, "\(written.prefix(2))")
    }

    @Test func aFloodOverManyHostsStaysWithinTheTotal() {
        let storage = CookieStorage(maximumCookiesPerDomain: 5, maximumCookies: 300)
        for host in 0..<2_000 {
            storage.store((0..<5).map { "c\($0)=\(host)" }, from: "http://h\(host).example.com/")
        }
        let cookies = storage.allCookies
        // Past the total, the least recently used go by a tenth of the limit more than the excess.
        #expect((270...300).contains(cookies.count))
        let domains = Set(cookies.map(\.domain))
        #expect(domains.isSuperset(of: (1_946..<2_000).map { "h\($0).example.com" }))
        #expect(domains.isSubset(of: (1_940..<2_000).map { "h\($0).example.com" }))
    }

    @Test func expiredCookiesAreEvictedFirstThenTheLeastRecentlyUsed() {
        let storage = CookieStorage(maximumCookiesPerDomain: 3)
        let url = "http://example.com/"
        storage.store(["old=1; Path=/o", "used=1; Path=/u"], from: url, now: cookieTestNow)
        storage.store(["brief=1; Max-Age=5"], from: url, now: cookieTestNow.addingTimeInterval(1))
        storage.store(["new=1; Path=/n"], from: url, now: cookieTestNow.addingTimeInterval(10))
        #expect(storage.pairs == ["new=1", "old=1", "used=1"])  // brief had expired, though used last
        // "used" is sent, so "old", then "new", are the least recently used.
        #expect(storage.header(for: "http://example.com/u", now: cookieTestNow.addingTimeInterval(20)) == "used=1")
        storage.store(["old2=1"], from: url, now: cookieTestNow.addingTimeInterval(20))
        storage.store(["newer=1"], from: url, now: cookieTestNow.addingTimeInterval(30))
        #expect(storage.pairs == ["newer=1", "old2=1", "used=1"])
    }

    @Test func theTotalLimitEvictsExpiredCookiesOfOtherDomainsFirst() {
        let storage = CookieStorage(maximumCookiesPerDomain: 10, maximumCookies: 3)
        storage.store(["keep=1"], from: "http://a.test/", now: cookieTestNow)
        storage.store(["brief=1; Max-Age=5"], from: "http://b.test/", now: cookieTestNow.addingTimeInterval(1))
        storage.store(["keep=2"], from: "http://c.test/", now: cookieTestNow.addingTimeInterval(2))
        storage.store(["keep=3"], from: "http://d.test/", now: cookieTestNow.addingTimeInterval(10))
        #expect(storage.allCookies.map(\.domain) == ["a.test", "c.test", "d.test"])
    }

    @Test func oversizedAndMalformedCookiesAreIgnoredNonASCIIIsKept() {
        let storage = CookieStorage()
        let big = String(repeating: "x", count: 4097)
        storage.store(
            ["\(big)=1", "a=\(big)", "nul=a\u{0}b", "crlf=a\r\nX-Injected: 1", "del=\u{7F}", "tab=a\tb", "ok=ünïcode ✓"],
            from: "http://example.com/"
        )
        #expect(storage.pairs == ["ok=ünïcode ✓"])
        #expect(storage.header(for: "http://example.com/") == "ok=ünïcode ✓")
        // A cookie at the size limit fits.
        storage.store(["n=\(String(repeating: "v", count: 4095))"], from: "http://example.com/")
        #expect(storage.allCookies.count == 2)
    }

    @Test func concurrentUseIsSafe() async {
        let storage = CookieStorage(maximumCookiesPerDomain: 20, maximumCookies: 100)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        storage.store(["w\(worker)=\(index)"], from: "http://h\(index % 10).example.com/")
                        _ = storage.header(for: "http://h\(index % 10).example.com/")
                    }
                }
            }
        }
        #expect(storage.allCookies.count == 80)
    }
}
