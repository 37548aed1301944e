import Foundation
import Lupine
import Testing

/// What a hostile server or caller can hand the jar beyond sizes: odd hosts, long paths, dates
/// no conversion can hold.
@Suite("Cookie hostile input")
struct CookieHostileInputTests {
    @Test func hostsAreCanonicalAcrossSpellings() {
        let storage = CookieStorage()
        storage.store(["a=1"], from: "http://WWW.Ex%41mple.com/")
        #expect(storage.header(for: "http://www.example.com/") == "a=1")
        storage.store(["idn=1; Domain=xn--bcher-kva.de", "u=1; Domain=bücher.de"], from: "http://www.bücher.de/")
        #expect(storage.header(for: "http://xn--bcher-kva.de/") == "idn=1")
        #expect(storage.header(for: "http://shop.bücher.de/") == "idn=1")
    }

    @Test func aLongDefaultPathIsRefusedLikeALongPathAttribute() {
        let storage = CookieStorage()
        let deep = "/" + String(repeating: "d", count: 2_000)
        storage.store(["a=1"], from: "http://example.com\(deep)/page")
        storage.store(["b=1; Path=/"], from: "http://example.com\(deep)/page")
        #expect(storage.pairs == ["b=1"])
    }

    @Test func datesBeyondWhatConversionsHoldNeverTrap() {
        let storage = CookieStorage()
        let farNow = Date(timeIntervalSince1970: 1e300)
        storage.store(["a=1; Max-Age=99999999999999999999999999999"], from: "http://example.com/", now: .distantFuture)
        storage.store(["b=1; Max-Age=5"], from: "http://example.com/", now: farNow)
        #expect(storage.setCookie(Cookie(name: "c", value: "1", domain: "example.com", expiresAt: Date(timeIntervalSince1970: 1e300))))
        #expect(!storage.setCookie(Cookie(name: "d", value: "1", domain: "example.com", expiresAt: Date(timeIntervalSince1970: .nan))))
        let text = storage.netscapeText(now: cookieTestNow)
        #expect(text.contains("\t\(Int(Date.distantFuture.timeIntervalSince1970))\tc\t1"))
        let copy = CookieStorage()
        #expect(copy.importNetscapeText(text, now: cookieTestNow).isEmpty)
        #expect(copy.pairs == storage.pairs)
    }

    @Test(arguments: ["#HttpOnly_evil", "a b", "a;b", "a/b", "", String(repeating: "h", count: 256)])
    func aDomainNoHostCouldHaveIsRefused(domain: String) {
        #expect(!CookieStorage().setCookie(Cookie(name: "a", value: "1", domain: domain)))
    }
}
