import Foundation
import Lupine
import Testing

/// RFC 6265 §5.3 (and RFC 6265bis where 6265 is silent): which cookies a response may set, for
/// which domain and path.
@Suite("Cookie storage model (RFC 6265 §5.3)")
struct CookieStorageModelTests {
    static let now = cookieTestNow

    /// The cookies `values` leave in an empty jar when they come from `url`.
    static func stored(_ values: [String], from url: String) -> [Cookie] {
        let storage = CookieStorage()
        storage.store(values, from: url)
        return storage.allCookies
    }

    @Test func withoutDomainACookieIsHostOnlyWithTheDefaultPath() throws {
        let cookie = try #require(Self.stored(["a=1"], from: "http://WWW.Example.com:8080/dir/page?q=/x").first)
        #expect(cookie == Cookie(name: "a", value: "1", domain: "www.example.com", path: "/dir", createdAt: Self.now))
        #expect(cookie.isHostOnly && cookie.expiresAt == nil && !cookie.isSecure)
    }

    @Test(arguments: [
        ("http://h.test", "/"), ("http://h.test/", "/"), ("http://h.test/a", "/"), ("http://h.test/a/", "/a"),
        ("http://h.test/a/b", "/a"), ("http://h.test/a/b/c?x=/y/z", "/a/b"), ("http://h.test//", "/"),
    ])
    func defaultPath(url: String, path: String) {
        #expect(Self.stored(["a=1"], from: url).map(\.path) == [path])
        #expect(Self.stored(["a=1; Path=relative"], from: url).map(\.path) == [path])
    }

    @Test func aDomainTheHostIsInMakesADomainCookie() {
        for (domain, host) in [("example.com", "www.example.com"), (".EXAMPLE.com", "a.b.example.com"), ("example.com", "example.com")] {
            let cookies = Self.stored(["a=1; Domain=\(domain)"], from: "https://\(host)/")
            #expect(cookies.map(\.domain) == ["example.com"], "\(domain) from \(host)")
            #expect(cookies.first?.isHostOnly == false)
        }
    }

    @Test(arguments: [
        ("other.com", "www.example.com"), ("ample.com", "example.com"), ("www.example.com", "example.com"),
        ("example.com.", "www.example.com"), ("com", "example.com"), ("co.uk", "shop.co.uk"),
        ("github.io", "me.github.io"), ("org.uk", "a.b.org.uk"), ("localhost", "a.localhost"),
        ("0.0.1", "127.0.0.1"), ("127.0.0.1", "a.127.0.0.1"), ("bücher.de", "www.bücher.de"),
    ])
    func aForeignDomainOrPublicSuffixIsRefused(domain: String, host: String) {
        #expect(Self.stored(["a=1; Domain=\(domain)"], from: "http://\(host)/").isEmpty)
    }

    @Test func aPublicSuffixOrAddressThatIsTheHostItselfMakesAHostOnlyCookie() {
        for host in ["github.io", "localhost", "co.uk", "127.0.0.1"] {
            let cookies = Self.stored(["a=1; Domain=\(host)"], from: "http://\(host)/")
            #expect(cookies.map(\.domain) == [host] && cookies.first?.isHostOnly == true, "\(host)")
        }
        let ipv6 = Self.stored(["a=1", "b=1; Domain=::1", "c=1; Domain=1"], from: "http://[::1]:8080/")
        #expect(ipv6.map(\.name) == ["a", "b"] && ipv6.allSatisfy { $0.domain == "::1" && $0.isHostOnly })
    }

    @Test func onlyHTTPSchemesCarryCookies() {
        for url in ["file:///tmp/x", "ftp://example.com/", "mailto:a@example.com", "http:///nohost", "data:,x"] {
            #expect(Self.stored(["a=1"], from: url).isEmpty, "\(url)")
        }
        #expect(Self.stored(["a=1"], from: "wss://example.com/socket").count == 1)
    }

    @Test func aReplacementKeepsTheCreationTime() throws {
        let storage = CookieStorage()
        storage.store(["a=1", "b=1", "a=1; Path=/x"], from: "http://example.com/")
        let later = Self.now.addingTimeInterval(100)
        storage.store(["a=2; HttpOnly"], from: "http://example.com/", now: later)
        let all = storage.allCookies
        #expect(all.count == 3)
        let replaced = try #require(all.first { $0.name == "a" && $0.path == "/" })
        #expect(replaced.value == "2" && replaced.isHTTPOnly)
        #expect(replaced.createdAt == Self.now && replaced.lastAccessedAt == later)
        // It keeps its place in the sending order too: created before b.
        #expect(storage.header(for: "http://example.com/", now: later) == "a=2; b=1")
    }

    @Test func anExpiredCookieDeletesTheStoredOneOnly() {
        let storage = CookieStorage()
        storage.store(["a=1", "b=1", "c=1", "d=1; Path=/p"], from: "http://example.com/")
        storage.store(
            ["a=; Max-Age=0", "b=; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "d=; Max-Age=0", "e=1; Max-Age=-1"],
            from: "http://example.com/"
        )
        #expect(storage.allCookies.map(\.name).sorted() == ["c", "d"])
    }

    @Test func aSecureCookieNeedsASecureOrigin() {
        #expect(Self.stored(["s=1; Secure"], from: "http://example.com/").isEmpty)
        #expect(Self.stored(["s=1; Secure"], from: "https://example.com/").first?.isSecure == true)
        // As curl: loopback names are secure contexts over plain HTTP.
        for host in ["localhost", "127.0.0.1", "[::1]"] {
            #expect(Self.stored(["s=1; Secure"], from: "http://\(host):8080/").first?.isSecure == true, "\(host)")
        }
    }

    @Test func anInsecureOriginCannotReplaceOrShadowASecureCookie() {
        let storage = CookieStorage()
        storage.store(["s=secret; Secure; Domain=example.com; Path=/"], from: "https://www.example.com/")
        storage.store(
            ["s=evil", "s=evil; Domain=example.com", "s=evil; Path=/deep", "s=; Max-Age=0; Domain=example.com", "t=1"],
            from: "http://www.example.com/"
        )
        #expect(storage.pairs == ["s=secret", "t=1"])
        // A secure origin may replace it.
        storage.store(["s=new; Domain=example.com"], from: "https://example.com/")
        #expect(storage.pairs == ["s=new", "t=1"])
    }

    @Test func cookiePrefixesAreEnforced() {
        let https = "https://www.example.com/a/b"
        #expect(Self.stored(["__Secure-a=1"], from: https).isEmpty)
        #expect(Self.stored(["__Secure-a=1; Secure"], from: https).count == 1)
        #expect(Self.stored(["__Host-a=1; Secure"], from: https).isEmpty)  // no Path=/
        #expect(Self.stored(["__Host-a=1; Secure; Path=/; Domain=example.com"], from: https).isEmpty)
        #expect(Self.stored(["__HOST-a=1; Path=/"], from: https).isEmpty)
        #expect(Self.stored(["__Host-a=1; Secure; Path=/"], from: https).map(\.domain) == ["www.example.com"])
    }

    @Test func attributesAreKept() throws {
        let cookie = try #require(
            Self.stored(["id=7; Max-Age=60; Domain=example.com; Path=/api; Secure; HttpOnly; SameSite=Strict"], from: "https://example.com/").first
        )
        #expect(cookie.expiresAt == Self.now.addingTimeInterval(60))
        #expect(cookie.path == "/api" && cookie.isSecure && cookie.isHTTPOnly && cookie.sameSite == .strict && !cookie.isHostOnly)
    }
}
