import Testing

@testable import Lupine

/// `Cache-Control` as RFC 9111 §5.2 reads it, from requests and responses.
@Suite struct CacheControlParsingTests {
    private func parse(_ lines: String...) -> CacheControl {
        CacheControl(HTTPHeaders(lines.map { ("Cache-Control", $0) }))
    }

    @Test func namesAreCaseInsensitiveAndUnknownDirectivesIgnored() {
        let control = self.parse("MAX-AGE=60, No-Cache, x-ext=\"a,b\", immutable, Public")
        #expect(control.maxAge == 60)
        #expect(control.noCache && control.isPublic)
        #expect(!control.noStore && !control.mustRevalidate)
    }

    @Test func quotedArgumentsAreUnquotedAndMayHoldCommas() {
        #expect(self.parse(#"max-age="60""#).maxAge == 60)
        let control = self.parse(#"no-cache="Set-Cookie, X-Foo", max-age=5"#)
        #expect(control.noCache)
        #expect(control.maxAge == 5)
        #expect(self.parse(#"private="a\"b", max-age=7"#).maxAge == 7)
        #expect(self.parse(#"private="a\"b", max-age=7"#).isPrivate)
    }

    @Test func anUnterminatedQuoteSwallowsTheRestOfTheLine() {
        let control = self.parse(#"no-cache="abc, max-age=7"#)
        #expect(control.noCache)
        #expect(control.maxAge == nil)
    }

    @Test func anInvalidMaxAgeMeansStale() {
        for bad in ["max-age=abc", "max-age=-1", "max-age=", "max-age", "max-age=1.5", "max-age=+5", "max-age=٣"] {
            #expect(self.parse(bad).maxAge == 0, "\(bad)")
        }
    }

    @Test func duplicatedDirectivesKeepTheMostRestrictiveValue() {
        #expect(self.parse("max-age=60, max-age=10").maxAge == 10)
        #expect(self.parse("max-age=10", "max-age=60").maxAge == 10)
        #expect(self.parse("max-age=60, max-age=abc").maxAge == 0)
        #expect(CacheControl(request: HTTPHeaders([("Cache-Control", "max-stale=50, max-stale=5")])).maxStale == 5)
        #expect(CacheControl(request: HTTPHeaders([("Cache-Control", "min-fresh=5, min-fresh=50")])).minFresh == 50)
    }

    @Test func hugeValuesSaturate() {
        #expect(self.parse("max-age=2147483647").maxAge == 2_147_483_647)
        #expect(self.parse("max-age=2147483648").maxAge == 2_147_483_648)
        #expect(self.parse("max-age=99999999999999999999999999999999").maxAge == 2_147_483_648)
        #expect(self.parse("max-age=" + String(repeating: "9", count: 100_000)).maxAge == 2_147_483_648)
    }

    @Test func requestDirectives() {
        let control = CacheControl(request: HTTPHeaders([("Cache-Control", "max-stale, min-fresh=30, only-if-cached, no-store")]))
        #expect(control.maxStale == Int.max)
        #expect(control.minFresh == 30)
        #expect(control.onlyIfCached && control.noStore)
        let invalid = CacheControl(request: HTTPHeaders([("Cache-Control", "max-stale=abc, min-fresh=soon")]))
        #expect(invalid.maxStale == nil)
        #expect(invalid.minFresh == nil)
    }

    @Test func pragmaNoCacheCountsOnlyWithoutCacheControl() {
        #expect(CacheControl(request: HTTPHeaders([("Pragma", "no-cache")])).noCache)
        #expect(CacheControl(request: HTTPHeaders([("Pragma", "NO-CACHE, foo")])).noCache)
        #expect(!CacheControl(request: HTTPHeaders([("Pragma", "no-cache"), ("Cache-Control", "max-age=5")])).noCache)
        #expect(!CacheControl(request: HTTPHeaders([("Pragma", "x-no-cache")])).noCache)
        // A response's Pragma means nothing (RFC 9111 §5.4).
        #expect(!CacheControl(HTTPHeaders([("Pragma", "no-cache")])).noCache)
    }

    @Test func hostileLinesParseWithoutTrapping() {
        let lines = ["", ",,,", "=", "=5", "\u{0}max-age=5", "max-age=5\r\nX: y", "ñ=ü, max-age=3", String(repeating: "a=\"", count: 10_000)]
        for line in lines {
            _ = self.parse(line)
        }
        #expect(self.parse(",, max-age=3 ,").maxAge == 3)
        #expect(self.parse("max-age = 4").maxAge == 4)
    }
}
