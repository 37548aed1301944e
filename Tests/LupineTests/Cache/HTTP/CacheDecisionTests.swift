import Foundation
import Testing

@testable import Lupine

/// What the cache does for a request (RFC 9111 §4), at fixed instants after a response was stored.
@Suite struct CacheDecisionTests {
    private let validated = [("Cache-Control", "max-age=60"), ("ETag", "\"v1\""), ("Last-Modified", CacheFixture.httpDate(-1000))]

    private func kind(_ fields: [(String, String)], request: [(String, String)] = [], after: TimeInterval) -> String {
        CacheFixture.kind(CacheFixture.decide(response: fields, request: request, after: after))
    }

    @Test func aFreshEntryIsServedWithItsAge() throws {
        let decision = CacheFixture.decide(response: self.validated, after: 10)
        guard case .fresh(let entry) = decision else {
            Issue.record("expected fresh, got \(CacheFixture.kind(decision))")
            return
        }
        #expect(entry.head.headers["Age"] == ["10"])
        #expect(entry.head.statusCode == 200)
        #expect(try entry.readBody() == Array("hello".utf8))
        #expect(entry.bodyLength == 5)
    }

    @Test func aStaleEntryIsValidatedWithItsValidators() {
        let decision = CacheFixture.decide(response: self.validated, after: 61)
        guard case .validate(_, let conditions, _) = decision else {
            Issue.record("expected validate, got \(CacheFixture.kind(decision))")
            return
        }
        #expect(conditions["If-None-Match"] == ["\"v1\""])
        #expect(conditions["If-Modified-Since"] == [CacheFixture.httpDate(-1000)])
    }

    /// RFC 8246: a fresh `immutable` response answers a reload (`max-age=0`) from the cache; a
    /// stale one, or a request's `no-cache`, is validated as ever (cache-tests.fyi's
    /// `cc-resp-immutable-fresh` and `-stale`).
    @Test func aFreshImmutableEntryAnswersAReload() {
        let immutable = [("Cache-Control", "max-age=60, immutable"), ("ETag", "\"v1\"")]
        #expect(self.kind(immutable, request: [("Cache-Control", "max-age=0")], after: 10) == "fresh")
        #expect(self.kind(immutable, request: [("Cache-Control", "max-age=0")], after: 61) == "validate")
        #expect(self.kind(immutable, request: [("Cache-Control", "no-cache")], after: 10) == "validate")
        // Only a reload: a request asking for no more than 5 s of age is not one.
        #expect(self.kind(immutable, request: [("Cache-Control", "max-age=5")], after: 10) == "validate")
        #expect(self.kind(self.validated, request: [("Cache-Control", "max-age=0")], after: 10) == "validate")
    }

    @Test func aStaleEntryWithoutValidatorIsAMiss() {
        #expect(self.kind([("Cache-Control", "max-age=60")], after: 61) == "miss")
        #expect(self.kind([("Cache-Control", "max-age=60")], after: 59) == "fresh")
    }

    @Test func noCacheOnEitherSideValidates() {
        #expect(self.kind(self.validated + [("Cache-Control", "no-cache")], after: 1) == "validate")
        #expect(self.kind(self.validated, request: [("Cache-Control", "no-cache")], after: 1) == "validate")
        #expect(self.kind(self.validated, request: [("Pragma", "no-cache")], after: 1) == "validate")
        #expect(self.kind(self.validated, request: [("Pragma", "no-cache"), ("Cache-Control", "max-stale")], after: 1) == "fresh")
    }

    @Test func requestNoStoreIsNeverServed() {
        #expect(self.kind(self.validated, request: [("Cache-Control", "no-store")], after: 1) == "miss")
        #expect(self.kind(self.validated, request: [("Cache-Control", "no-store, only-if-cached")], after: 1) == "unsatisfiable")
    }

    @Test func requestMaxAgeAndMinFresh() {
        #expect(self.kind(self.validated, request: [("Cache-Control", "max-age=5")], after: 10) == "validate")
        #expect(self.kind(self.validated, request: [("Cache-Control", "max-age=15")], after: 10) == "fresh")
        #expect(self.kind(self.validated, request: [("Cache-Control", "max-age=0")], after: 0) == "fresh")
        #expect(self.kind(self.validated, request: [("Cache-Control", "max-age=0")], after: 1) == "validate")
        #expect(self.kind(self.validated, request: [("Cache-Control", "min-fresh=30")], after: 40) == "validate")
        #expect(self.kind(self.validated, request: [("Cache-Control", "min-fresh=30")], after: 20) == "fresh")
    }

    @Test func maxStaleAcceptsStaleEntriesWithinItsBound() {
        #expect(self.kind(self.validated, request: [("Cache-Control", "max-stale")], after: 100_000) == "staleUsable")
        #expect(self.kind(self.validated, request: [("Cache-Control", "max-stale=10")], after: 65) == "staleUsable")
        #expect(self.kind(self.validated, request: [("Cache-Control", "max-stale=10")], after: 80) == "validate")
        #expect(self.kind(self.validated, request: [("Cache-Control", "max-stale=abc")], after: 65) == "validate")
    }

    @Test func mustRevalidateAndNoCacheAreNeverServedStale() {
        #expect(self.kind(self.validated + [("Cache-Control", "must-revalidate")], request: [("Cache-Control", "max-stale")], after: 65) == "validate")
        #expect(self.kind(self.validated + [("Cache-Control", "no-cache")], request: [("Cache-Control", "max-stale")], after: 65) == "validate")
        #expect(self.kind(self.validated + [("Cache-Control", "must-revalidate")], after: 30) == "fresh")
    }

    @Test func onlyIfCachedServesOrIsUnsatisfiable() {
        let onlyIfCached = [("Cache-Control", "only-if-cached")]
        #expect(self.kind(self.validated, request: onlyIfCached, after: 10) == "fresh")
        #expect(self.kind(self.validated, request: onlyIfCached, after: 61) == "unsatisfiable")
        #expect(self.kind(self.validated, request: [("Cache-Control", "only-if-cached, max-stale")], after: 61) == "staleUsable")
        let empty = HTTPCache(memoryCapacity: 1 << 20)
        #expect(CacheFixture.kind(empty.decision(for: CacheFixture.request("a", onlyIfCached), now: CacheFixture.now)) == "unsatisfiable")
        #expect(CacheFixture.kind(empty.decision(for: CacheFixture.request(), now: CacheFixture.now)) == "miss")
    }

    @Test func invalidFreshnessIsStale() {
        #expect(self.kind([("Cache-Control", "max-age=abc"), ("ETag", "\"x\"")], after: 0) == "validate")
        #expect(self.kind([("Cache-Control", "max-age=600, max-age=5"), ("ETag", "\"x\"")], after: 10) == "validate")
        #expect(self.kind([("Expires", "0"), ("ETag", "\"x\"")], after: 0) == "validate")
    }

    @Test func onlyPlainGETsAndHEADsAreAnsweredFromTheCache() {
        let cache = HTTPCache(memoryCapacity: 1 << 20)
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.validated))
        let now = CacheFixture.now
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request("a", method: .HEAD), now: now)) == "fresh")
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request("a", method: .HEAD), now: now + 61)) == "validate")
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request("a", method: .POST), now: now)) == "miss")
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request("a", [("Range", "bytes=0-1")]), now: now)) == "miss")
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request("a", [("If-None-Match", "\"v0\"")]), now: now)) == "miss")
        #expect(cache.anyStoredEntry(for: CacheFixture.request("a", method: .POST)) == nil)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("a")) != nil)
        let variants = ["http://example.test/a#fragment", "HTTP://Example.TEST:80/a", "http://user:pw@example.test/a"]
        for url in variants.compactMap(URL.init(string:)) {
            #expect(CacheFixture.kind(cache.decision(for: Request(url: url), now: now)) == "fresh", "\(url)")
        }
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request("A"), now: now)) == "miss")
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request("a/"), now: now)) == "miss")
    }
}
