import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

@testable import Lupine

/// A server that answers a `stale-while-revalidate` background request with a body the cache
/// will not keep, then goes silent: the revalidation must end instead of holding its connection
/// (and the URL's one revalidation slot) for as long as the server likes.
@Suite struct BackgroundRevalidationHostileTests {
    /// Serves `url` stale once (storing it first), with its background request sent to `target`
    /// instead; returns once that revalidation has ended, or fails after waitUntil's bound.
    private static func revalidate(_ url: URL, against target: URL, cache: HTTPCache, manager: SessionManager) async throws {
        manager.interceptor = LaterAdaptationRewriter(to: target)
        #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .miss)
        #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .stale)
        let key = try #require(CacheKey.primary(url))
        try await waitUntil("the background revalidation ends though the server stalls") { !cache.isRevalidating(primaryKey: key) }
        // The stale entry is still the one stored, whole.
        let kept = await completion(of: Request(url: url), on: manager)
        #expect(kept.servedCount == 1)
        #expect(kept.cacheStatus == .stale)
    }

    @Test func aBodyLargerThanTheCacheKeepsIsNotReadOn() async throws {
        try await withServerAndTransport { server, transport in
            // A 1 MiB memory cache keeps bodies up to a tenth of that.
            let cache = HTTPCache(memoryCapacity: 1 << 20)
            let manager = cachingManager(transport, cache: cache)
            let url = countedURL(server, "swr-huge", [("Cache-Control", "max-age=0, stale-while-revalidate=600")])
            // Storable (a 200 with an ETag), 10 MB promised, silent after 2 MB.
            let huge = server.faultsBaseURL.appending("/interrupt?bytes=10000000&at=2000000&then=stall")
            try await Self.revalidate(url, against: huge, cache: cache, manager: manager)
            manager.invalidateSession(cancelingTasks: true)
            await cache.backgroundRevalidationsFinished()
        }
    }

    @Test func aBodyNotStoredIsReadOnlyALittle() async throws {
        try await withServerAndTransport { server, transport in
            let cache = HTTPCache(memoryCapacity: 1 << 20)
            let manager = cachingManager(transport, cache: cache)
            let url = countedURL(server, "swr-unstored", [("Cache-Control", "max-age=0, stale-while-revalidate=600")])
            // A 200 with no validator nor freshness (not worth storing), silent after 2 MB.
            let unstored = server.faultsBaseURL.appending("/interrupt?bytes=10000000&at=2000000&then=stall&etag=none")
            try await Self.revalidate(url, against: unstored, cache: cache, manager: manager)
            manager.invalidateSession(cancelingTasks: true)
            await cache.backgroundRevalidationsFinished()
        }
    }
}

/// Stale hits on many URLs at once: the background requests they start are bounded, so they
/// never queue ahead of the requests callers wait for.
@Suite struct BackgroundRevalidationBurstTests {
    @Test func aBurstOfStaleHitsStartsNoMoreThanTheLimitOfRevalidations() async throws {
        try await withServerAndTransport { server, transport in
            let cache = HTTPCache(memoryCapacity: 1 << 20)
            let manager = cachingManager(transport, cache: cache)
            let urls = (0..<20).map { countedURL(server, "swr-burst-\($0)", [("Cache-Control", "max-age=0, stale-while-revalidate=600"), ("ETag", "\"b\"")]) }
            for url in urls {
                _ = await completion(of: Request(url: url), on: manager)
            }
            let hold = ConditionalHold()
            manager.interceptor = hold
            for url in urls {
                #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .stale)
            }
            try await waitUntil("the started revalidations are held") { hold.held == HTTPCache.maximumRevalidations }
            let running = urls.filter { url in CacheKey.primary(url).map(cache.isRevalidating(primaryKey:)) ?? false }
            #expect(running.count == HTTPCache.maximumRevalidations)
            // A caller's request is not queued behind them.
            let fresh = await completion(of: Request(url: server.baseURL.appending("/get")), on: manager)
            #expect(fresh.response?.statusCode == 200)

            hold.release()
            await cache.backgroundRevalidationsFinished()
            // Once they are done, the next stale hit revalidates its URL.
            #expect(await completion(of: Request(url: urls[19]), on: manager).cacheStatus == .stale)
            await cache.backgroundRevalidationsFinished()
            #expect(server.counted("swr-burst-19").conditional == 1)
        }
    }
}
