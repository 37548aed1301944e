import Foundation
import LupineTestServer
import NIOConcurrencyHelpers
import Testing

@testable import Lupine

/// `HEAD` answered from the stored `GET` response (RFC 9111 §4, RFC 9110 §9.3.2), over loopback
/// against the counted endpoint, through each kind of sink.
@Suite struct HeadFromCacheTests {
    @Test func aFreshGETAnswersAHEADWithItsHeadAndNoBody() async throws {
        try await withServerAndTransport { server, transport in
            let manager = cachingManager(transport)
            let url = countedURL(server, "head-fresh", [("Cache-Control", "max-age=60")])
            let get = await completion(of: Request(url: url), on: manager)
            let head = await completion(of: Request(url: url, method: .HEAD), on: manager)
            #expect(head.cacheStatus == .hit)
            #expect(head.response?.statusCode == 200)
            #expect(head.responseData.isEmpty)
            #expect(head.response?.headers.first(name: "Content-Length") == String(get.responseData.count))
            #expect(server.counted("head-fresh").requests == 1)

            // Streamed: the head is handed on and no chunk.
            let chunks = NIOLockedValueBox(0)
            let streamed = try await manager.stream(Request(url: url, method: .HEAD)) { _ in chunks.withLockedValue { $0 += 1 } }
            #expect(streamed.head?.statusCode == 200)
            #expect(chunks.withLockedValue { $0 } == 0)
            #expect(server.counted("head-fresh").requests == 1)
            // The GET entry is still whole.
            #expect(await completion(of: Request(url: url), on: manager).responseData == get.responseData)
        }
    }

    @Test func aStaleGETIsValidatedByAConditionalHEADWhose304RefreshesIt() async throws {
        try await withServerAndTransport { server, transport in
            let cache = HTTPCache(memoryCapacity: 1 << 20)
            let manager = cachingManager(transport, cache: cache)
            let url = countedURL(server, "head-stale", [("Cache-Control", "max-age=0"), ("ETag", "\"h\""), ("X-Seen", "{count}")])
            let get = await completion(of: Request(url: url), on: manager)
            let head = await completion(of: Request(url: url, method: .HEAD), on: manager)
            #expect(head.cacheStatus == .revalidated)
            #expect(head.responseData.isEmpty)
            #expect(head.response?.headers.first(name: "X-Seen") == "2")
            #expect(server.counted("head-stale") == (2, 1))
            let stored = cache.anyStoredEntry(for: Request(url: url))
            #expect(stored?.head.headers.first(name: "X-Seen") == "2")
            #expect((try? stored?.readBody()) == get.responseData)
        }
    }

    @Test func aHEADsOwn200NeitherStoresNorDeletesTheGETEntry() async throws {
        try await withServerAndTransport { server, transport in
            let cache = HTTPCache(memoryCapacity: 1 << 20)
            let manager = cachingManager(transport, cache: cache)
            // Nothing stored: the HEAD's 200 is not stored as the GET response.
            let unseen = countedURL(server, "head-unseen", [("Cache-Control", "max-age=60")])
            _ = await completion(of: Request(url: unseen, method: .HEAD), on: manager)
            #expect(cache.anyStoredEntry(for: Request(url: unseen)) == nil)
            #expect(await completion(of: Request(url: unseen), on: manager).cacheStatus == .miss)

            // The ETag changes with each request, so the HEAD's validation gets a 200.
            let url = countedURL(server, "head-changed", [("Cache-Control", "max-age=0"), ("ETag", "\"e{count}\"")])
            let get = await completion(of: Request(url: url), on: manager)
            let head = await completion(of: Request(url: url, method: .HEAD), on: manager)
            #expect(head.cacheStatus == .miss)
            #expect(head.response?.headers.first(name: "ETag") == "\"e2\"")
            #expect(cache.anyStoredEntry(for: Request(url: url))?.head.headers.first(name: "ETag") == "\"e1\"")
            #expect(await completion(of: Request(url: url, cachePolicy: .returnCacheDataDontLoad), on: manager).responseData == get.responseData)

            // A download does not use the cache: its HEAD is sent, and the GET entry stays.
            let directory = try temporaryFolder()
            defer { try? FileManager.default.removeItem(at: directory) }
            manager.downloadDirectory = directory
            let downloaded = try await manager.download(Request(url: url, method: .HEAD))
            #expect(downloaded.head?.statusCode == 200)
            #expect(server.counted("head-changed").requests == 3)
            #expect(cache.anyStoredEntry(for: Request(url: url))?.head.headers.first(name: "ETag") == "\"e1\"")
            if case .success(let file) = downloaded.result {
                #expect(try Data(contentsOf: file).isEmpty)
                try? FileManager.default.removeItem(at: file)
            }
        }
    }
}
