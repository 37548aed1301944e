import Foundation
import Testing

@testable import Lupine

/// Which responses are stored (RFC 9111 §3, §3.5) and what of them.
@Suite struct CacheStorabilityTests {
    private let cacheable = [("Cache-Control", "max-age=60")]

    private func stores(_ fields: [(String, String)]) -> Bool {
        self.stores(CacheFixture.request(), 200, fields)
    }

    private func stores(_ request: Request, _ status: Int, _ fields: [(String, String)]) -> Bool {
        HTTPCache(memoryCapacity: 1 << 20).writer(for: request, response: CacheFixture.response(status, fields), requestTime: CacheFixture.now, responseTime: CacheFixture.now) != nil
    }

    @Test func onlyPlainGETsAreStored() {
        #expect(self.stores(self.cacheable))
        for method in [HTTPMethod.HEAD, .POST, .PUT, .DELETE, .PATCH, .OPTIONS] {
            #expect(!self.stores(CacheFixture.request("a", method: method), 200, self.cacheable), "\(method)")
        }
        #expect(!self.stores(CacheFixture.request("a", [("Range", "bytes=0-9")]), 200, self.cacheable))
    }

    @Test func statuses() {
        #expect(!self.stores(CacheFixture.request(), 206, self.cacheable + [("Content-Range", "bytes 0-4/10")]))
        #expect(!self.stores(CacheFixture.request(), 304, self.cacheable))
        #expect(!self.stores(CacheFixture.request(), 100, self.cacheable))
        #expect(self.stores(CacheFixture.request(), 500, self.cacheable))
        #expect(self.stores(CacheFixture.request(), 302, self.cacheable))
        let validatorOnly = [("ETag", "\"x\"")]
        #expect(self.stores(CacheFixture.request(), 404, validatorOnly))
        #expect(!self.stores(CacheFixture.request(), 500, validatorOnly))
        #expect(!self.stores(CacheFixture.request(), 302, validatorOnly))
        #expect(self.stores(CacheFixture.request(), 302, validatorOnly + [("Cache-Control", "public")]))
        #expect(self.stores(CacheFixture.request(), 202, validatorOnly + [("Cache-Control", "private")]))
    }

    @Test func noStoreOnEitherSide() {
        #expect(!self.stores(CacheFixture.request(), 200, [("Cache-Control", "max-age=60, no-store")]))
        #expect(!self.stores(CacheFixture.request(), 200, [("Cache-Control", "NO-STORE"), ("Cache-Control", "max-age=60")]))
        #expect(!self.stores(CacheFixture.request("a", [("Cache-Control", "no-store")]), 200, self.cacheable))
    }

    @Test func varyStarIsNeverStored() {
        #expect(!self.stores(CacheFixture.request(), 200, self.cacheable + [("Vary", "Accept, *")]))
        #expect(!self.stores(CacheFixture.request(), 200, self.cacheable + [("Vary", "Accept"), ("Vary", "*")]))
    }

    @Test func authorizedRequestsNeedPublicSharedMaxAgeOrMustRevalidate() {
        let authorized = CacheFixture.request("a", [("Authorization", "Bearer secret")])
        #expect(!self.stores(authorized, 200, self.cacheable))
        #expect(!self.stores(authorized, 200, [("Cache-Control", "max-age=60, private")]))
        #expect(self.stores(authorized, 200, [("Cache-Control", "max-age=60, public")]))
        #expect(self.stores(authorized, 200, [("Cache-Control", "s-maxage=60"), ("ETag", "\"x\"")]))
        #expect(self.stores(authorized, 200, [("Cache-Control", "must-revalidate, max-age=60")]))
    }

    @Test func uselessResponsesAreNotStored() {
        #expect(!self.stores([]))
        #expect(!self.stores([("Cache-Control", "max-age=0")]))
        #expect(self.stores([("Cache-Control", "max-age=0"), ("ETag", "\"x\"")]))
        #expect(self.stores([("Last-Modified", CacheFixture.httpDate(-1000))]))
    }

    @Test func hopByHopFieldsAndURLCredentialsAreNotKeptButCookiesAre() throws {
        let cache = HTTPCache(memoryCapacity: 1 << 20)
        let url = try #require(URL(string: "http://user:secret@example.test/a"))
        let request = Request(url: url)
        let response = ResponseHead(
            status: .ok,
            headers: HTTPHeaders(
                self.cacheable + [
                    ("Set-Cookie", "session=1"), ("Connection", "keep-alive, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"),
                    ("Transfer-Encoding", "chunked"), ("X-Kept", "yes"),
                ]),
            url: url)
        let writer = try #require(cache.writer(for: request, response: response, requestTime: CacheFixture.now, responseTime: CacheFixture.now))
        writer.append(ByteBuffer(bytes: [1, 2, 3]))
        writer.commit()
        let entry = try #require(cache.anyStoredEntry(for: CacheFixture.request()))
        // Set-Cookie is kept, as RFC 9111 §3.1 asks (cache-tests.fyi's `headers-store-Set-Cookie`).
        #expect(entry.head.headers.map(\.name).sorted() == ["Age", "Cache-Control", "Set-Cookie", "X-Kept"])
        #expect(entry.head.url.absoluteString == "http://example.test/a")
    }

    /// RFC 9111 §5.2.2.3: with `must-understand`, a status whose caching rules the cache knows is
    /// stored despite `no-store`, and one it does not know is not stored at all.
    @Test func mustUnderstandStoresOnlyUnderstoodStatusesAndOverridesNoStore() {
        let cache = HTTPCache(memoryCapacity: 1 << 20)
        let directives = [("Cache-Control", "max-age=3600, no-store, must-understand")]
        #expect(CacheFixture.store(cache, CacheFixture.request("ok"), CacheFixture.response(200, directives, path: "ok")))
        #expect(CacheFixture.store(cache, CacheFixture.request("gone"), CacheFixture.response(410, directives, path: "gone")))
        #expect(!CacheFixture.store(cache, CacheFixture.request("odd"), CacheFixture.response(599, directives, path: "odd")))
        #expect(!CacheFixture.store(cache, CacheFixture.request("odd2"), CacheFixture.response(599, [("Cache-Control", "max-age=3600, must-understand")], path: "odd2")))
        #expect(!CacheFixture.store(cache, CacheFixture.request("plain"), CacheFixture.response(200, [("Cache-Control", "max-age=3600, no-store")], path: "plain")))
        #expect(!CacheFixture.store(cache, CacheFixture.request("asked", [("Cache-Control", "no-store")]), CacheFixture.response(200, directives, path: "asked")))
    }

    /// A `GET` with a body (a search API's query) is neither stored nor answered from the cache:
    /// the URL alone does not name its answer (a hostile pass).
    @Test func aGetWithABodyIsNeitherStoredNorServed() {
        let cache = HTTPCache(memoryCapacity: 1 << 20)
        var withBody = CacheFixture.request("search")
        withBody.body = .bytes(Array("{\"query\":\"alpha\"}".utf8))
        #expect(!CacheFixture.store(cache, withBody, CacheFixture.response(200, self.cacheable, path: "search")))
        #expect(CacheFixture.store(cache, CacheFixture.request("search"), CacheFixture.response(200, self.cacheable, path: "search")))
        #expect(CacheFixture.kind(cache.decision(for: withBody, now: CacheFixture.now)) == "miss")
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request("search"), now: CacheFixture.now)) == "fresh")
    }

    @Test func anAbandonedWriterStoresNothing() {
        let cache = HTTPCache(memoryCapacity: 1 << 20)
        let writer = cache.writer(for: CacheFixture.request(), response: CacheFixture.response(200, self.cacheable), requestTime: CacheFixture.now, responseTime: CacheFixture.now)
        writer?.append(ByteBuffer(bytes: [1]))
        writer?.abandon()
        writer?.commit()
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) == nil)
        #expect(cache.currentMemoryUsage == 0)
    }
}
