import Foundation
import Lupine
import LupineTestServer
import NIOConcurrencyHelpers
import Testing

/// The cache point of the execution loop and the ``CachedResponseHandler``, with a cache written
/// here (the HTTP cache is its own feature): it answers what it was told to, as fresh or stale.
@Suite struct CachePointTests {
    /// A cache keyed by URL that calls every entry fresh or stale as told, and counts its calls.
    final class TestCache: ResponseCache {
        private let entries = NIOLockedValueBox<[URL: CachedResponse]>([:])
        let lookups = NIOLockedValueBox(0)
        let stale: Bool

        init(stale: Bool = false) {
            self.stale = stale
        }

        func lookup(_ request: Request) async -> CacheLookup {
            self.lookups.withLockedValue { $0 += 1 }
            guard let entry = self.entries.withLockedValue({ $0[request.url] }) else { return .miss }
            return self.stale ? .stale(entry) : .fresh(entry)
        }

        func store(_ response: CachedResponse, for request: Request) async {
            self.entries.withLockedValue { $0[request.url] = response }
        }

        func stored(_ url: URL) -> CachedResponse? {
            self.entries.withLockedValue { $0[url] }
        }
    }

    static func response(_ url: URL, body: String) -> CachedResponse {
        CachedResponse(head: ResponseHead(status: .ok, headers: ["Content-Type": "text/plain"], url: url), data: Array(body.utf8))
    }

    @Test func aFreshResponseAnswersWithoutSendingAndAStaleOneOnlyUnderThePoliciesThatTakeAny() async throws {
        // Nothing listens: any request that is sent fails as refused.
        let refused = try ClosedPort()
        let url = refused.url.appending("/cached")
        let manager = SessionManager(configuration: TransportConfiguration())
        defer { manager.invalidateSession(cancelingTasks: true) }
        let monitor = PipelineMonitor()
        manager.eventMonitors = [monitor]
        manager.interceptor = ClosureAdapter { _, _ in throw OwnError(name: "adapted a cached request") }
        for (stale, policy, served) in [
            (false, Request.CachePolicy.useProtocolCachePolicy, true),
            (false, .returnCacheDataElseLoad, true),
            (false, .returnCacheDataDontLoad, true),
            (false, .reloadIgnoringLocalCacheData, false),
            (true, .useProtocolCachePolicy, false),
            (true, .returnCacheDataElseLoad, true),
            (true, .returnCacheDataDontLoad, true),
        ] {
            let cache = TestCache(stale: stale)
            await cache.store(Self.response(url, body: "from the cache"), for: Request(url: url))
            manager.urlCache = cache
            let done = await completion(of: Request(url: url, cachePolicy: policy), on: manager)
            if served {
                #expect(done.error == nil, "\(policy) stale \(stale)")
                #expect(String(decoding: done.responseData, as: UTF8.self) == "from the cache")
                #expect(done.transactionMetrics.isEmpty)
            } else {
                guard case .requestAdaptationFailed? = done.error else {
                    Issue.record("\(policy) stale \(stale) should go to the network, got \(String(describing: done.error))")
                    continue
                }
            }
            #expect(cache.lookups.withLockedValue { $0 } == (policy == .reloadIgnoringLocalCacheData ? 0 : 1))
        }
        #expect(monitor.events.all.filter { $0.hasPrefix("cached") }.count == 5)
    }

    @Test func aMissUnderReturnCacheDataDontLoadFailsAndSendsNothing() async throws {
        let refused = try ClosedPort()
        let manager = SessionManager(configuration: TransportConfiguration())
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.urlCache = TestCache()
        let url = refused.url.appending("/never-stored")
        let done = await completion(of: Request(url: url, cachePolicy: .returnCacheDataDontLoad), on: manager)
        guard case .resourceUnavailable(let missing)? = done.error else {
            Issue.record("expected resourceUnavailable, got \(String(describing: done.error))")
            return
        }
        #expect(missing == url)
        #expect(done.error?.description.contains("no cached response") == true)
    }

    @Test func responsesAreOfferedToTheHandlerAndStoredAsItDecides() async throws {
        try await withSessionManager { server, manager in
            let cache = TestCache()
            manager.urlCache = cache
            manager.cachedResponseHandler = ResponseCacher { _, response in
                var kept = response
                kept.userInfo["kept-by"] = "session"
                return kept
            }
            let kept = server.baseURL.appending("/get?kept")
            let first = await completion(of: Request(url: kept), on: manager)
            #expect(first.error == nil)
            #expect(cache.stored(kept)?.userInfo["kept-by"] == "session")
            #expect(cache.stored(kept)?.data == first.responseData)
            // The next request is answered from the cache: the same bytes, no request sent.
            let second = await completion(of: Request(url: kept), on: manager)
            #expect(second.responseData == first.responseData)
            #expect(second.transactionMetrics.isEmpty)

            // The request's own handler is asked instead of the session's.
            let refusedURL = server.baseURL.appending("/get?refused")
            var request = Request(url: refusedURL)
            request.cachedResponseHandler = ResponseCacher.doNotCache
            #expect(await completion(of: request, on: manager).error == nil)
            #expect(cache.stored(refusedURL) == nil)
        }
    }

    @Test func downloadsAndStreamsNeitherComeFromNorGoToTheCache() async throws {
        try await withSessionManager { server, manager in
            let cache = TestCache()
            manager.urlCache = cache
            let url = server.baseURL.appending("/bytes/64")
            _ = try await manager.stream(Request(url: url)) { _ in }
            let file = try await manager.download(Request(url: url))
            if let fileURL = file.value {
                try? FileManager.default.removeItem(at: fileURL)
            }
            #expect(cache.lookups.withLockedValue { $0 } == 0)
            #expect(cache.stored(url) == nil)
        }
    }
}
