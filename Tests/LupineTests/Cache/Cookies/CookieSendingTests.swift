import Foundation
import Lupine
import Testing

/// RFC 6265 §5.4: which stored cookies a request carries, and in what order.
@Suite("Cookie sending (RFC 6265 §5.4)")
struct CookieSendingTests {
    @Test func aHostOnlyCookieGoesToItsHostAlone() {
        let storage = CookieStorage()
        storage.store(["h=1"], from: "http://www.example.com/")
        #expect(storage.header(for: "http://www.example.com/x") == "h=1")
        #expect(storage.header(for: "http://WWW.EXAMPLE.COM:9999/") == "h=1")  // ports do not isolate cookies
        #expect(storage.header(for: "http://sub.www.example.com/") == nil)
        #expect(storage.header(for: "http://example.com/") == nil)
    }

    @Test func aDomainCookieGoesToTheDomainAndItsSubdomains() {
        let storage = CookieStorage()
        storage.store(["d=1; Domain=example.com"], from: "http://www.example.com/")
        for url in ["http://example.com/", "http://www.example.com/", "http://a.b.example.com/", "https://EXAMPLE.com/"] {
            #expect(storage.header(for: url) == "d=1", "\(url)")
        }
        for url in ["http://notexample.com/", "http://example.com.evil.net/", "http://com/", "http://example.org/"] {
            #expect(storage.header(for: url) == nil, "\(url)")
        }
    }

    @Test(arguments: [
        ("/docs", "/docs", true), ("/docs", "/docs/", true), ("/docs", "/docs/web/a", true), ("/docs", "/doc", false),
        ("/docs", "/docsx", false), ("/docs", "/", false), ("/docs/", "/docs/x", true), ("/docs/", "/docs", false),
        ("/", "/anything", true), ("/Docs", "/docs", false), ("/a%20b", "/a%20b/c", true),
    ])
    func pathMatch(cookiePath: String, requestPath: String, matches: Bool) {
        let storage = CookieStorage()
        storage.store(["p=1; Path=\(cookiePath)"], from: "http://example.com/")
        #expect((storage.header(for: "http://example.com\(requestPath)?q=1") != nil) == matches)
    }

    @Test func aSecureCookieGoesOnlyOverASecureConnection() {
        let storage = CookieStorage()
        storage.store(["s=1; Secure", "p=1"], from: "https://example.com/")
        #expect(storage.header(for: "https://example.com/") == "s=1; p=1")
        #expect(storage.header(for: "wss://example.com/") == "s=1; p=1")
        #expect(storage.header(for: "http://example.com/") == "p=1")
        let loopback = CookieStorage()
        loopback.store(["s=1; Secure"], from: "https://localhost/")
        #expect(loopback.header(for: "http://localhost:8080/") == "s=1")
    }

    @Test func longerPathsFirstThenEarlierCreation() {
        let storage = CookieStorage()
        storage.store(["c=1; Path=/"], from: "http://www.example.com/", now: cookieTestNow)
        storage.store(["b=1; Path=/a/b"], from: "http://www.example.com/", now: cookieTestNow.addingTimeInterval(1))
        storage.store(["a=1; Path=/a", "z=1; Domain=example.com; Path=/a"], from: "http://www.example.com/", now: cookieTestNow.addingTimeInterval(2))
        storage.store(["y=1; Path=/"], from: "http://www.example.com/", now: cookieTestNow.addingTimeInterval(3))
        let later = cookieTestNow.addingTimeInterval(4)
        #expect(storage.header(for: "http://www.example.com/a/b/c", now: later) == "b=1; a=1; z=1; c=1; y=1")
    }

    @Test func anExpiredCookieIsNotSentAndSendingUpdatesTheAccessTime() throws {
        let storage = CookieStorage()
        storage.store(["short=1; Max-Age=10", "long=1; Max-Age=1000", "session=1"], from: "http://example.com/")
        let later = cookieTestNow.addingTimeInterval(11)
        let sent = storage.cookies(for: cookieURL("http://example.com/"), now: later)
        #expect(sent.map(\.name) == ["long", "session"])
        #expect(sent.allSatisfy { $0.lastAccessedAt == later && $0.createdAt == cookieTestNow })
        let stored = try #require(storage.allCookies.first { $0.name == "long" })
        #expect(stored.lastAccessedAt == later)
        #expect(storage.allCookies.count == 3)
        storage.removeExpired(now: later)
        #expect(storage.pairs == ["long=1", "session=1"])
    }

    @Test func noCookiesForOtherSchemesOrHosts() {
        let storage = CookieStorage()
        storage.store(["a=1"], from: "http://example.com/")
        #expect(storage.header(for: "ftp://example.com/") == nil)
        #expect(storage.header(for: "file:///example.com/") == nil)
        #expect(storage.cookies(for: cookieURL("http://example.net/")).isEmpty)
    }

    @Test func setDeleteAndRemoveAll() {
        let storage = CookieStorage()
        let expiry = Date().addingTimeInterval(3600)
        #expect(storage.setCookie(Cookie(name: "a", value: "1", domain: ".Example.COM", expiresAt: expiry, isHostOnly: false)))
        #expect(storage.setCookie(Cookie(name: "a", value: "2", domain: "example.com", isHostOnly: false)))
        #expect(storage.allCookies.map(\.domain) == ["example.com"])
        #expect(storage.header(for: "http://www.example.com/", now: Date()) == "a=2")
        storage.deleteCookie(Cookie(name: "a", value: "", domain: ".example.com"))
        #expect(storage.allCookies.isEmpty)
        storage.store(["a=1", "b=1"], from: "http://example.com/")
        storage.removeAll()
        #expect(storage.allCookies.isEmpty && storage.header(for: "http://example.com/") == nil)
    }

    @Test(arguments: [
        Cookie(name: "", value: "1", domain: "example.com"), Cookie(name: "a=b", value: "1", domain: "example.com"),
        Cookie(name: "a", value: "1; admin=1", domain: "example.com"), Cookie(name: "a", value: "1\r\nX: y", domain: "example.com"),
        Cookie(name: "a", value: "1\t2", domain: "example.com"), Cookie(name: "a", value: "1", domain: ""),
        Cookie(name: "a", value: "1", domain: "exämple.com"), Cookie(name: "a", value: "1", domain: "example.com", path: "relative"),
        Cookie(name: "a", value: String(repeating: "v", count: 4096), domain: "example.com"),
        Cookie(name: "a", value: "1", domain: "example.com", expiresAt: Date(timeIntervalSince1970: 0)),
    ])
    func setCookieRefusesWhatCouldNotBeSentBack(cookie: Cookie) {
        let storage = CookieStorage()
        let stored = storage.setCookie(cookie)
        #expect(storage.allCookies.isEmpty)
        #expect(stored == (cookie.expiresAt != nil))  // an expired cookie is well formed: it only deletes
    }
}
