import Foundation
import Testing

@testable import Lupine

/// RFC 6265 §5.2: how one `Set-Cookie` field value is read, before it is judged against the
/// request.
@Suite("Set-Cookie parsing (RFC 6265 §5.2)")
struct SetCookieParsingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func parse(_ text: String) -> SetCookie? {
        SetCookie.parse(text, now: Self.now)
    }

    @Test func splitsNameAndValueOnTheFirstEqualsAndTrims() {
        #expect(Self.parse("a=1") == SetCookie(name: "a", value: "1"))
        #expect(Self.parse(" \ta = b=c \t; Path=/x") == SetCookie(name: "a", value: "b=c", path: "/x"))
        #expect(Self.parse("a=") == SetCookie(name: "a", value: ""))
        #expect(Self.parse("a=\"quoted value\"")?.value == "\"quoted value\"")
    }

    @Test(arguments: ["a", "=1", " =1", "", ";a=1", "a; b=1"])
    func ignoresACookieWithoutNameOrEquals(text: String) {
        #expect(Self.parse(text) == nil)
    }

    @Test func readsAttributesInAnyCase() {
        let cookie = Self.parse("a=1; DOMAIN=.Example.COM; pAtH=/p; SECURE; httponly; SameSite=lax; Unknown=x; =y")
        #expect(cookie == SetCookie(name: "a", value: "1", domain: "example.com", path: "/p", isSecure: true, isHTTPOnly: true, sameSite: .lax))
        #expect(Self.parse("a=1; SameSite=Strict")?.sameSite == .strict)
        #expect(Self.parse("a=1; samesite=NONE")?.sameSite == SameSite.none)
        #expect(Self.parse("a=1; SameSite=sometimes")?.sameSite == nil)
    }

    @Test func anEmptyDomainIsIgnoredAndTheLastPathWins() {
        #expect(Self.parse("a=1; Domain=example.com; Domain=")?.domain == "example.com")
        #expect(Self.parse("a=1; Domain=")?.domain == nil)
        #expect(Self.parse("a=1; Path=/x; Path=relative")?.path == nil)
        #expect(Self.parse("a=1; Path=")?.path == nil)
        #expect(Self.parse("a=1; Path=relative; Path=/y")?.path == "/y")
    }

    @Test func maxAgeWinsOverExpiresInEitherOrder() {
        let expires = "Expires=Wed, 09 Jun 2021 10:18:14 GMT"
        #expect(Self.parse("a=1; \(expires)")?.expiresAt == Date(timeIntervalSince1970: 1_623_233_894))
        #expect(Self.parse("a=1; Max-Age=60; \(expires)")?.expiresAt == Self.now.addingTimeInterval(60))
        #expect(Self.parse("a=1; \(expires); Max-Age=60")?.expiresAt == Self.now.addingTimeInterval(60))
    }

    @Test func maxAgeOfZeroOrLessExpiresAtOnceAndANonNumberIsIgnored() {
        #expect(Self.parse("a=1; Max-Age=0")?.expiresAt == .distantPast)
        #expect(Self.parse("a=1; Max-Age=-5")?.expiresAt == .distantPast)
        #expect(Self.parse("a=1; Max-Age=-0")?.expiresAt == .distantPast)
        for bad in ["abc", "1a", "+5", "", "-", " 6 0", "1.5"] {
            #expect(Self.parse("a=1; Max-Age=\(bad)")?.expiresAt == nil, "Max-Age=\(bad)")
        }
        // An ignored Max-Age leaves Expires in charge.
        #expect(Self.parse("a=1; Max-Age=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT")?.expiresAt == Date(timeIntervalSince1970: 0))
        #expect(Self.parse("a=1; Max-Age=99999999999999999999999")?.expiresAt == .distantFuture)
        #expect(Self.parse("a=1; Expires=not a date")?.expiresAt == nil)
    }

    @Test(arguments: [
        "a=1\u{0}", "a=1\r\nSet-Cookie: b=2", "a\u{7}=1", "a=1; Path=/\u{7F}", "a=1; Domain=x\u{1B}.com", "a=\u{85}1",
    ])
    func aControlCharacterAnywhereIgnoresTheCookie(text: String) {
        #expect(Self.parse(text) == nil)
    }

    @Test func tabsAreWhitespaceAndNonASCIIIsKept() {
        #expect(Self.parse("\ta\t=\tvalue\t;\tPath\t=\t/p") == SetCookie(name: "a", value: "value", path: "/p"))
        #expect(Self.parse("naïve=ünïcode ✓")?.value == "ünïcode ✓")
    }

    @Test func bounds() {
        let name = String(repeating: "n", count: 4000)
        #expect(Self.parse("\(name)=\(String(repeating: "v", count: 96))") != nil)
        #expect(Self.parse("\(name)=\(String(repeating: "v", count: 97))") == nil)
        #expect(Self.parse("a=1; Path=/\(String(repeating: "p", count: 1023))")?.path?.utf8.count == 1024)
        #expect(Self.parse("a=1; Path=/x; Path=/\(String(repeating: "p", count: 1024))")?.path == "/x")
        // A megabyte of attributes is read in one pass.
        #expect(Self.parse("a=1" + String(repeating: "; x=y", count: 200_000))?.name == "a")
    }
}
