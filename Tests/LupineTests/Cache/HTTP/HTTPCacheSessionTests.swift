import Foundation
import Lupine
import LupineTestServer
import NIOConcurrencyHelpers
import Testing

/// The ``HTTPCache`` in the session's loop, against the test server's counted endpoint over
/// loopback: what is sent, what is served, and what the completion says about it.
@Suite struct HTTPCacheSessionTests {
    @Test func aManagerWithATransportOfItsOwnStartsWithAMemoryCacheAndEveryManagerWithAJar() {
        let own = SessionManager(configuration: TransportConfiguration())
        defer { own.invalidateSession(cancelingTasks: true) }
        #expect(own.urlCache is HTTPCache)
        let shared = SessionManager()
        #expect(shared.urlCache == nil)
        #expect(shared.cookieStorage != nil)
        #expect(shared.cookieStorage !== own.cookieStorage)
    }

    @Test(arguments: WireProtocol.allCases) func aFreshResponseIsServedWithoutSendingAnything(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = cachingManager(transport)
            let url = countedURL(server, "fresh", [("Cache-Control", "max-age=60")])
            let first = await completion(of: Request(url: url), on: manager)
            let second = await completion(of: Request(url: url), on: manager)
            #expect(first.cacheStatus == .miss)
            #expect(second.cacheStatus == .hit)
            #expect(second.servedCount == 1)
            #expect(second.transactionMetrics.isEmpty)
            #expect(second.response?.statusCode == 200)
            #expect(server.counted("fresh") == (1, 0))
        }
    }

    /// A stored response keeps its `Set-Cookie` (RFC 9111 §3.1), and a hit delivers it, but the
    /// jar hears of cookies from the network only: a cookie deleted since is not set again.
    @Test func aHitCarriesItsSetCookieButDoesNotSetItAgain() async throws {
        try await withServerAndTransport { server, transport in
            let manager = cachingManager(transport)
            let jar = try #require(manager.cookieStorage)
            let url = countedURL(server, "cookie", [("Cache-Control", "max-age=60"), ("Set-Cookie", "flavour=plain; Path=/")])
            _ = await completion(of: Request(url: url), on: manager)
            let stored = jar.cookies(for: url)
            #expect(stored.map(\.name) == ["flavour"])
            for cookie in stored { jar.deleteCookie(cookie) }
            let second = await completion(of: Request(url: url), on: manager)
            #expect(second.cacheStatus == .hit)
            #expect(second.response?.headers["Set-Cookie"] == ["flavour=plain; Path=/"])
            #expect(jar.cookies(for: url).isEmpty)
            #expect(server.counted("cookie") == (1, 0))
        }
    }

    @Test(arguments: WireProtocol.allCases) func aStaleResponseIsRevalidatedWithExactlyOneConditionalRequest(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = cachingManager(transport)
            for (key, validator) in [("etag", ("ETag", "\"v1\"")), ("modified", ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"))] {
                let url = countedURL(server, key, [("Cache-Control", "no-cache"), validator, ("X-Seen", "{count}")])
                _ = await completion(of: Request(url: url), on: manager)
                let second = await completion(of: Request(url: url), on: manager)
                #expect(second.cacheStatus == .revalidated, "\(key)")
                #expect(second.response?.statusCode == 200)
                #expect(second.servedCount == 1, "the stored body")
                // The 304's headers replace the stored ones.
                #expect(second.response?.headers.first(name: "X-Seen") == "2")
                #expect(second.response?.headers.first(name: "Content-Type") == "application/json")
                #expect(server.counted(key) == (2, 1), "\(key)")
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func noStoreAndVaryStarAreNeverServedFromTheCache(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = cachingManager(transport)
            for (key, header) in [("no-store", ("Cache-Control", "max-age=60, no-store")), ("vary-star", ("Vary", "*"))] {
                let url = countedURL(server, key, [("Cache-Control", "max-age=60"), header])
                _ = await completion(of: Request(url: url), on: manager)
                let second = await completion(of: Request(url: url), on: manager)
                #expect(second.cacheStatus == .miss, "\(key)")
                #expect(server.counted(key).requests == 2, "\(key)")
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func varyKeepsOneVariantPerRequestHeaderValue(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = cachingManager(transport)
            let url = countedURL(server, "vary", [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
            func get(_ language: String) async -> TaskCompletion {
                await completion(of: Request(url: url, headers: ["Accept-Language": language]), on: manager)
            }
            #expect(await get("en").servedCount == 1)
            let again = await get("en")
            #expect(again.cacheStatus == .hit)
            #expect(again.servedCount == 1)
            let french = await get("fr")
            #expect(french.cacheStatus == .miss)
            #expect(french.servedCount == 2)
            #expect(await get("fr").servedCount == 2)
            #expect(server.counted("vary").requests == 2)
        }
    }

    @Test(arguments: WireProtocol.allCases) func aSuccessfulUnsafeRequestInvalidatesTheStoredResponse(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = cachingManager(transport)
            let url = countedURL(server, "invalidate", [("Cache-Control", "max-age=60")])
            _ = await completion(of: Request(url: url), on: manager)
            #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .hit)
            let post = await completion(of: Request(url: url, method: .POST, body: .bytes(Array("x".utf8))), on: manager)
            #expect(post.cacheStatus == .miss)
            let after = await completion(of: Request(url: url), on: manager)
            #expect(after.cacheStatus == .miss)
            #expect(after.servedCount == 3)
        }
    }

    @Test(arguments: WireProtocol.allCases) func theCachePoliciesBehaveAsURLSessionDocumentsThem(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = cachingManager(transport)
            let missing = countedURL(server, "never-stored", [("Cache-Control", "max-age=60")])
            let dontLoad = await completion(of: Request(url: missing, cachePolicy: .returnCacheDataDontLoad), on: manager)
            guard case .resourceUnavailable? = dontLoad.error else {
                Issue.record("a miss under returnCacheDataDontLoad: \(String(describing: dontLoad.error))")
                return
            }
            #expect(server.counted("never-stored").requests == 0)

            let stale = countedURL(server, "stale", [("Cache-Control", "max-age=0"), ("ETag", "\"s\"")])
            _ = await completion(of: Request(url: stale), on: manager)
            let elseLoad = await completion(of: Request(url: stale, cachePolicy: .returnCacheDataElseLoad), on: manager)
            #expect(elseLoad.cacheStatus == .hit)
            #expect(elseLoad.servedCount == 1)
            let reload = await completion(of: Request(url: stale, cachePolicy: .reloadIgnoringLocalCacheData), on: manager)
            #expect(reload.cacheStatus == .miss)
            #expect(reload.servedCount == 2)
            #expect(server.counted("stale") == (2, 0), "reloading sends no condition")
            // The reload stored the newer response.
            let newest = await completion(of: Request(url: stale, cachePolicy: .returnCacheDataDontLoad), on: manager)
            #expect(newest.servedCount == 2)
        }
    }

    @Test(arguments: WireProtocol.allCases) func requestDirectivesAskForValidationOrOnlyTheCache(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = cachingManager(transport)
            let url = countedURL(server, "directives", [("Cache-Control", "max-age=60"), ("ETag", "\"d\"")])
            _ = await completion(of: Request(url: url), on: manager)
            let noCache = await completion(of: Request(url: url, headers: ["Cache-Control": "no-cache"]), on: manager)
            #expect(noCache.cacheStatus == .revalidated)
            let pragma = await completion(of: Request(url: url, headers: ["Pragma": "no-cache"]), on: manager)
            #expect(pragma.cacheStatus == .revalidated)
            #expect(server.counted("directives") == (3, 2))

            let absent = countedURL(server, "only-if-cached")
            let onlyCached = await completion(of: Request(url: absent, headers: ["Cache-Control": "only-if-cached"]), on: manager)
            #expect(onlyCached.response?.statusCode == 504)
            #expect(server.counted("only-if-cached").requests == 0)
        }
    }

    @Test(arguments: WireProtocol.allCases) func aStreamedResponseIsStoredAsItArrivesAndServedInChunks(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let directory = try temporaryFolder()
            defer { try? FileManager.default.removeItem(at: directory) }
            let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 64 * 1024 * 1024, directory: directory)
            let manager = cachingManager(transport, cache: cache)
            let url = countedURL(server, "streamed", [("Cache-Control", "max-age=60")])
            let first = try await Self.streamedBody(of: url, on: manager)
            #expect(try await Self.streamedBody(of: url, on: manager) == first)
            #expect(server.counted("streamed").requests == 1)

            // Another cache on the same directory, as another process would open it, serves it too.
            let reopened = cachingManager(transport, cache: try HTTPCache(memoryCapacity: 0, diskCapacity: 64 * 1024 * 1024, directory: directory))
            let third = await completion(of: Request(url: url), on: reopened)
            #expect(third.cacheStatus == .hit)
            #expect(third.responseData == first)
            #expect(server.counted("streamed").requests == 1)
        }
    }

    /// The body of `url` as ``SessionManager/stream(_:receiveHead:receiveChunk:)`` hands it on.
    private static func streamedBody(of url: URL, on manager: SessionManager) async throws -> [UInt8] {
        let collected = NIOLockedValueBox<[UInt8]>([])
        _ = try await manager.stream(Request(url: url)) { chunk in
            collected.withLockedValue { $0.append(contentsOf: chunk.readableBytesView) }
        }
        return collected.withLockedValue { $0 }
    }

    @Test(arguments: WireProtocol.allCases) func theCachedResponseHandlerDecidesWhatIsStored(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = cachingManager(transport)
            manager.cachedResponseHandler = ResponseCacher.doNotCache
            let url = countedURL(server, "handler", [("Cache-Control", "max-age=60")])
            _ = await completion(of: Request(url: url), on: manager)
            #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .miss)
            var request = Request(url: url)
            request.cachedResponseHandler = ResponseCacher.cache
            _ = await completion(of: request, on: manager)
            #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .hit)
            #expect(server.counted("handler").requests == 3)
        }
    }

    @Test(arguments: WireProtocol.allCases) func theWillCacheHookDecidesUnlessTheRequestHasAHandler(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = cachingManager(transport)
            manager.hooks.dataTaskWillCacheResponse = { _, response in
                var marked = response
                marked.head.headers.replaceOrAdd(name: "X-Kept-By", value: "hook")
                return marked
            }
            let url = countedURL(server, "hook", [("Cache-Control", "max-age=60")])
            _ = await completion(of: Request(url: url), on: manager)
            let hit = await completion(of: Request(url: url), on: manager)
            #expect(hit.cacheStatus == .hit)
            #expect(hit.response?.headers.first(name: "X-Kept-By") == "hook")

            manager.hooks.dataTaskWillCacheResponse = { _, _ in nil }
            let other = countedURL(server, "hook-drops", [("Cache-Control", "max-age=60")])
            _ = await completion(of: Request(url: other), on: manager)
            #expect(await completion(of: Request(url: other), on: manager).cacheStatus == .miss)
            var own = Request(url: other)
            own.cachedResponseHandler = ResponseCacher.cache
            _ = await completion(of: own, on: manager)
            #expect(await completion(of: Request(url: other), on: manager).cacheStatus == .hit)
        }
    }
}
