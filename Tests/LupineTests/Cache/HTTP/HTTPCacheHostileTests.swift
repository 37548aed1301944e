import Foundation
import Testing

@testable import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cache against hostile servers and a hostile file system.
@Suite struct HTTPCacheHostileTests {
    private let fresh = [("Cache-Control", "max-age=600")]

    private func entryName(_ path: String = "a") throws -> String {
        CacheKey.fileName(primary: try #require(CacheKey.primary(CacheFixture.url(path))), variant: VaryKey.digest(fields: [], request: [:]))
    }

    @Test func aFIFOOrSymlinkUnderAnEntrysNameIsNeitherReadNorRemoved() throws {
        let directory = try temporaryFolder()
        let outside = try temporaryFile(Array("precious".utf8), name: "target")
        let fifo = directory.appending(path: try self.entryName("a"))
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let link = directory.appending(path: try self.entryName("b"))
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("a")) == nil)
        #expect(cache.anyStoredEntry(for: CacheFixture.request("b")) == nil)
        cache.removeAllCachedResponses()
        #expect(FileManager.default.fileExists(atPath: fifo.path))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == outside.path)
        #expect(try Data(contentsOf: outside) == Data("precious".utf8))
    }

    @Test func headerBytesAServerShouldNotSendSurviveTheDiskUnchanged() throws {
        let directory = try temporaryFolder()
        let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        let odd = [("X-Odd", "a\r\nInjected: 1\u{0}é😀"), ("X-Empty", ""), ("ÿ", "\u{7F}")]
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(299, self.fresh + odd))
        let entry = try #require(try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory).anyStoredEntry(for: CacheFixture.request()))
        #expect(entry.head.statusCode == 299)
        for (name, value) in odd {
            #expect(entry.head.headers[name] == [value])
        }
        #expect(entry.head.headers["Injected"] == [])
    }

    @Test func aHugeHeadIsKeptOutOfTheDisk() throws {
        let directory = try temporaryFolder()
        let cache = try HTTPCache(memoryCapacity: 1 << 26, diskCapacity: 1 << 26, directory: directory)
        let huge = (0..<20_000).map { ("X-Filler-\($0)", String(repeating: "v", count: 60)) }
        #expect(CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.fresh + huge)))
        #expect(CacheFixture.entryFiles(directory).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) != nil, "kept in memory")
    }

    @Test func anEndlessBodyStopsBeingKeptOnceItOutgrowsBothStores() throws {
        let directory = try temporaryFolder()
        let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
        let writer = try #require(cache.writer(for: CacheFixture.request(), response: CacheFixture.response(200, self.fresh), requestTime: CacheFixture.now, responseTime: CacheFixture.now))
        let chunk = ByteBuffer(bytes: [UInt8](repeating: 1, count: 65_536))
        for _ in 0..<17 {
            writer.append(chunk)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "the temporary file is gone as soon as it outgrows the disk")
        for _ in 0..<1000 {
            writer.append(chunk)
        }
        writer.commit()
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) == nil)
        #expect(cache.currentMemoryUsage == 0 && cache.currentDiskUsage == 0)
    }

    @Test func manyTasksStoringAndReadingAtOnce() async throws {
        let directory = try temporaryFolder()
        let cache = try HTTPCache(memoryCapacity: 40_000, diskCapacity: 60_000, directory: directory)
        let fresh = self.fresh
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<50 {
                        let path = "k\((task * 7 + round) % 23)"
                        let body = Array("\(path)-body".utf8)
                        CacheFixture.store(cache, CacheFixture.request(path), CacheFixture.response(200, fresh, path: path), body: body)
                        if let entry = cache.anyStoredEntry(for: CacheFixture.request(path)) {
                            #expect((try? entry.readBody()) == body)
                        }
                        if round % 10 == 0 {
                            cache.removeCachedResponse(for: CacheFixture.request(path))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(cache.currentMemoryUsage <= 40_000 && cache.currentDiskUsage <= 60_000)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.allSatisfy(DiskCacheIndex.isEntryName))
        let reopened = try HTTPCache(memoryCapacity: 0, diskCapacity: 60_000, directory: directory)
        #expect(reopened.currentDiskUsage == cache.currentDiskUsage)
    }

    /// Stores and removes of the same two keys racing each other: the live cache's count must
    /// match the files it leaves, so that a reopened cache counts the same and nothing it counts
    /// has gone (a remove once unlinked a file a store had just published).
    @Test func storesAndRemovesOfOneKeyRacingLeaveTheCountTrue() async throws {
        let directory = try temporaryFolder()
        let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        let fresh = self.fresh
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<300 {
                        let path = "k\(round % 2)"
                        if (task + round) % 3 == 0 {
                            cache.removeCachedResponse(for: CacheFixture.request(path))
                        } else {
                            CacheFixture.store(cache, CacheFixture.request(path), CacheFixture.response(200, fresh, path: path), body: Array("\(path)-\(task)".utf8))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let onDisk = try CacheFixture.entryFiles(directory).reduce(0) { total, name in
            total + (try FileManager.default.attributesOfItem(atPath: directory.appending(path: name).path)[.size] as? Int ?? 0)
        }
        #expect(cache.currentDiskUsage == onDisk)
        let reopened = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        #expect(reopened.currentDiskUsage == onDisk)
    }
}
