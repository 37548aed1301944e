import Foundation
import Testing

@testable import Lupine

/// The memory store: least recently used out first, by bytes.
@Suite struct MemoryCacheStoreTests {
    private let fresh = [("Cache-Control", "max-age=600")]

    @Test func theLeastRecentlyUsedGoFirstWithinTheCapacity() {
        let cache = HTTPCache(memoryCapacity: 10_000)
        let body = [UInt8](repeating: 7, count: 900)
        for index in 0..<10 {
            CacheFixture.store(cache, CacheFixture.request("e\(index)"), CacheFixture.response(200, self.fresh, path: "e\(index)"), body: body)
        }
        // Use the oldest, then push more in.
        #expect(cache.anyStoredEntry(for: CacheFixture.request("e0")) != nil)
        for index in 10..<15 {
            CacheFixture.store(cache, CacheFixture.request("e\(index)"), CacheFixture.response(200, self.fresh, path: "e\(index)"), body: body)
        }
        #expect(cache.currentMemoryUsage <= 10_000)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("e0")) != nil)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("e1")) == nil)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("e14")) != nil)
    }

    @Test func anEntryLargerThanItsShareIsNotKept() {
        let cache = HTTPCache(memoryCapacity: 10_000)
        let response = CacheFixture.response(200, self.fresh)
        CacheFixture.store(cache, CacheFixture.request(), response, body: [UInt8](repeating: 1, count: 5_000))
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) == nil)
        #expect(cache.currentMemoryUsage == 0)
        #expect(HTTPCache(memoryCapacity: 0).writer(for: CacheFixture.request(), response: response, requestTime: CacheFixture.now, responseTime: CacheFixture.now) != nil)
    }

    @Test func aNewResponseReplacesTheStoredOneAndUsageFollows() throws {
        let cache = HTTPCache(memoryCapacity: 100_000)
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.fresh), body: Array("first".utf8))
        let first = cache.currentMemoryUsage
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.fresh), body: Array("second!".utf8))
        #expect(cache.currentMemoryUsage == first + 2)
        #expect(try cache.anyStoredEntry(for: CacheFixture.request())?.readBody() == Array("second!".utf8))
        // Too large to keep: the older copy goes too, rather than stay and be served.
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.fresh), body: [UInt8](repeating: 0, count: 50_000))
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) == nil)
        #expect(cache.currentMemoryUsage == 0)
    }

    @Test func removal() {
        let cache = HTTPCache(memoryCapacity: 100_000)
        CacheFixture.store(cache, CacheFixture.request("a"), CacheFixture.response(200, self.fresh))
        CacheFixture.store(cache, CacheFixture.request("b"), CacheFixture.response(200, self.fresh, path: "b"))
        cache.removeCachedResponse(for: CacheFixture.request("a"))
        #expect(cache.anyStoredEntry(for: CacheFixture.request("a")) == nil)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("b")) != nil)
        cache.removeAllCachedResponses()
        #expect(cache.anyStoredEntry(for: CacheFixture.request("b")) == nil)
        #expect(cache.currentMemoryUsage == 0)
    }

    @Test func bodyChunksCoverTheBodyInOrder() async throws {
        let cache = HTTPCache(memoryCapacity: 1 << 20)
        let body = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.fresh), body: body)
        let entry = try #require(cache.anyStoredEntry(for: CacheFixture.request()))
        var collected: [UInt8] = []
        var sizes: [Int] = []
        for try await chunk in entry.bodyChunks(chunkSize: 300) {
            sizes.append(chunk.readableBytes)
            collected += Array(chunk.readableBytesView)
        }
        #expect(collected == body)
        #expect(sizes == [300, 300, 300, 100])
    }
}
