import Foundation
import Testing

@testable import Lupine

/// The disk store with real files in a temporary folder.
@Suite struct DiskCacheTests {
    private let fresh = [("Cache-Control", "max-age=600")]

    @Test func entriesSurviveIntoASecondCacheOnTheSameDirectory() throws {
        let sandbox = try Sandbox()
        let directory = sandbox.work.appending(path: "cache")
        let first = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
        let body = [UInt8]((0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        #expect(CacheFixture.store(first, CacheFixture.request(), CacheFixture.response(200, self.fresh), body: body, chunk: 700))
        let files = CacheFixture.entryFiles(directory)
        #expect(files.count == 1 && DiskCacheIndex.isEntryName(files[0]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == files)
        let second = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
        #expect(second.currentDiskUsage == first.currentDiskUsage && second.currentDiskUsage > 3000)
        guard case .fresh(let entry) = second.decision(for: CacheFixture.request(), now: CacheFixture.now.addingTimeInterval(5)) else {
            Issue.record("the second cache should find the first one's entry")
            return
        }
        #expect(try entry.readBody() == body)
        #expect(entry.head.headers["Age"] == ["5"])
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aCacheAlreadyOpenSeesAnotherOnesNewEntries() throws {
        let directory = try temporaryFolder()
        let reader = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
        let writer = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
        #expect(reader.anyStoredEntry(for: CacheFixture.request()) == nil)
        CacheFixture.store(writer, CacheFixture.request(), CacheFixture.response(200, self.fresh))
        #expect(try reader.anyStoredEntry(for: CacheFixture.request())?.readBody() == Array("hello".utf8))
        writer.removeCachedResponse(for: CacheFixture.request())
        #expect(reader.anyStoredEntry(for: CacheFixture.request()) == nil)
    }

    @Test func aLargeBodyStaysOnDiskAndStreamsInChunks() async throws {
        let directory = try temporaryFolder()
        let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 24, directory: directory)
        let body = [UInt8]((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.fresh), body: body, chunk: 65_536)
        #expect(cache.currentMemoryUsage == 0)
        let entry = try #require(cache.anyStoredEntry(for: CacheFixture.request()))
        #expect(entry.bodyLength == body.count)
        var received = 0
        var matches = true
        for try await chunk in entry.bodyChunks(chunkSize: 100_000) {
            #expect(chunk.readableBytes <= 100_000)
            matches = matches && Array(chunk.readableBytesView) == Array(body[received..<received + chunk.readableBytes])
            received += chunk.readableBytes
        }
        #expect(received == body.count && matches)
    }

    @Test func theLeastRecentlyUsedFilesAreEvictedBeyondTheCapacity() throws {
        let directory = try temporaryFolder()
        let body = [UInt8](repeating: 1, count: 1000)
        let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 4500, directory: directory)
        for index in 0..<3 {
            CacheFixture.store(cache, CacheFixture.request("e\(index)"), CacheFixture.response(200, self.fresh, path: "e\(index)"), body: body)
        }
        #expect(CacheFixture.entryFiles(directory).count == 3)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("e0")) != nil)
        CacheFixture.store(cache, CacheFixture.request("e3"), CacheFixture.response(200, self.fresh, path: "e3"), body: body)
        #expect(cache.currentDiskUsage <= 4500)
        #expect(CacheFixture.entryFiles(directory).count == 3)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("e1")) == nil)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("e0")) != nil)
        // Larger than the whole capacity: not stored, nothing left behind.
        CacheFixture.store(cache, CacheFixture.request("big"), CacheFixture.response(200, self.fresh, path: "big"), body: [UInt8](repeating: 2, count: 5000))
        #expect(cache.anyStoredEntry(for: CacheFixture.request("big")) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 3)
        // A smaller capacity on reopening evicts down to nine tenths of it.
        let smaller = try HTTPCache(memoryCapacity: 0, diskCapacity: 2800, directory: directory)
        #expect(smaller.currentDiskUsage <= 2520 && CacheFixture.entryFiles(directory).count == 2)
    }

    /// Caches sharing a directory (here two; the same holds across processes, each with its own
    /// open of the directory to lock) keep it within the capacity together: each counts what the
    /// others stored before it publishes and evicts (issue 30: each kept its own count).
    @Test func cachesSharingADirectoryKeepItWithinTheCapacityTogether() async throws {
        let directory = try temporaryFolder()
        let body = [UInt8](repeating: 1, count: 1000)
        let first = try HTTPCache(memoryCapacity: 0, diskCapacity: 4500, directory: directory)
        let second = try HTTPCache(memoryCapacity: 0, diskCapacity: 4500, directory: directory)
        await withTaskGroup(of: Void.self) { group in
            for (name, cache) in [("a", first), ("b", second)] {
                group.addTask {
                    for index in 0..<6 {
                        let path = "\(name)\(index)"
                        CacheFixture.store(cache, CacheFixture.request(path), CacheFixture.response(200, self.fresh, path: path), body: body)
                    }
                }
            }
        }
        let sizes = try CacheFixture.entryFiles(directory).map {
            try FileManager.default.attributesOfItem(atPath: directory.appending(path: $0).path)[.size] as? Int ?? 0
        }
        #expect(sizes.reduce(0, +) <= 4500, "\(sizes)")
        #expect(sizes.count == 3)
    }

    @Test func removingEverythingLeavesOtherFilesAlone() throws {
        let directory = try temporaryFolder()
        try Data("mine".utf8).write(to: directory.appending(path: "notes.txt"))
        try Data("x".utf8).write(to: directory.appending(path: String(repeating: "a", count: 32) + "-" + String(repeating: "b", count: 31) + ".lpc"))
        let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
        CacheFixture.store(cache, CacheFixture.request("a"), CacheFixture.response(200, self.fresh))
        CacheFixture.store(cache, CacheFixture.request("b"), CacheFixture.response(200, self.fresh, path: "b"))
        cache.removeAllCachedResponses()
        #expect(cache.currentDiskUsage == 0 && cache.currentMemoryUsage == 0)
        #expect(CacheFixture.entryFiles(directory).count == 1)
        #expect(try Data(contentsOf: directory.appending(path: "notes.txt")) == Data("mine".utf8))
    }

    @Test func aDirectoryThatCannotBeUsedIsATypedError() throws {
        let file = try temporaryFile([1], name: "plain")
        #expect {
            _ = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: file)
        } throws: { error in
            guard case LupineError.cacheDirectoryUnusable(let url, _) = error else { return false }
            return url == file && !"\(error)".contains("\n") && !"\(error)".contains(".;")
        }
        #expect(throws: LupineError.self) {
            _ = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: file.appending(path: "below"))
        }
    }
}
