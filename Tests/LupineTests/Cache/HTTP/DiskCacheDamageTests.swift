import Foundation
import LupineTestSupport
import Testing

@testable import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Torn, damaged, foreign and vanished disk entries, and dead writers' leftovers: a miss, never
/// served, and a cache that opens cleanly.
@Suite struct DiskCacheDamageTests {
    private let fresh = [("Cache-Control", "max-age=600")]
    private let body = [UInt8]((0..<5000).map { UInt8(truncatingIfNeeded: $0) })

    /// A folder holding one stored entry, and that entry's path.
    private func storedEntry() throws -> (directory: URL, file: URL) {
        let directory = try temporaryFolder()
        let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.fresh), body: self.body)
        let files = CacheFixture.entryFiles(directory)
        try #require(files.count == 1)
        return (directory, directory.appending(path: files[0]))
    }

    private func reopened(_ directory: URL) throws -> HTTPCache {
        try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
    }

    @Test func aTruncatedEntryIsAMissAndRemoved() throws {
        for cut in [1, 24, 5000, 5100] {
            let (directory, file) = try self.storedEntry()
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
            #expect(truncate(file.path, off_t(size - cut)) == 0)
            let cache = try self.reopened(directory)
            #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request(), now: CacheFixture.now)) == "miss", "cut \(cut)")
            #expect(CacheFixture.entryFiles(directory).isEmpty, "cut \(cut)")
        }
    }

    @Test func aTruncationAfterOpeningIsAMissOnLookup() throws {
        let (directory, file) = try self.storedEntry()
        let cache = try self.reopened(directory)
        #expect(truncate(file.path, 100) == 0)
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) == nil)
        #expect(CacheFixture.entryFiles(directory).isEmpty)
    }

    @Test func aDamagedBodyThrowsAndIsRemoved() async throws {
        let (directory, file) = try self.storedEntry()
        var bytes = try [UInt8](Data(contentsOf: file))
        bytes[bytes.count - 100] ^= 0xFF
        try Data(bytes).write(to: file)
        let cache = try self.reopened(directory)
        let entry = try #require(cache.anyStoredEntry(for: CacheFixture.request()))
        #expect(throws: CacheEntryDamaged.self) { try entry.readBody() }
        #expect(CacheFixture.entryFiles(directory).isEmpty)
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) == nil)

        let (otherDirectory, otherFile) = try self.storedEntry()
        var other = try [UInt8](Data(contentsOf: otherFile))
        other[other.count - 100] ^= 0xFF
        try Data(other).write(to: otherFile)
        let streamed = try #require(try self.reopened(otherDirectory).anyStoredEntry(for: CacheFixture.request()))
        // Checked before the first chunk: a reader gets none of a damaged body (hostile pass 4).
        let chunks = Recorder<Int>()
        await #expect(throws: CacheEntryDamaged.self) {
            for try await chunk in streamed.bodyChunks(chunkSize: 1000) {
                chunks.append(chunk.readableBytes)
            }
        }
        #expect(chunks.all.isEmpty)
        #expect(CacheFixture.entryFiles(otherDirectory).isEmpty)
    }

    @Test func foreignFilesWithAnEntryNameAreMissesAndLeftAlone() throws {
        let (directory, file) = try self.storedEntry()
        let name = file.lastPathComponent
        // The user's text under an entry's name: not in the cache's format, so not the cache's.
        try Data("not a cache entry".utf8).write(to: file)
        let impostor = directory.appending(path: String(repeating: "0", count: 32) + "-" + String(repeating: "1", count: 32) + ".lpc")
        try FileManager.default.copyItem(at: file, to: impostor)
        let other = directory.appending(path: "README")
        try Data("keep".utf8).write(to: other)
        try FileManager.default.createDirectory(at: directory.appending(path: String(repeating: "2", count: 32) + "-" + String(repeating: "3", count: 32) + ".lpc"), withIntermediateDirectories: false)
        let cache = try self.reopened(directory)
        #expect(cache.currentDiskUsage == 0)
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) == nil)
        #expect(try Data(contentsOf: directory.appending(path: name)) == Data("not a cache entry".utf8))
        #expect(try Data(contentsOf: impostor) == Data("not a cache entry".utf8))
        #expect(FileManager.default.fileExists(atPath: other.path))
        #expect(CacheFixture.entryFiles(directory).count == 3, "nothing that is not the cache's is removed")
    }

    @Test func anEntryCopiedUnderAnotherEntrysNameIsNotServed() throws {
        let (directory, file) = try self.storedEntry()
        let cache = try self.reopened(directory)
        CacheFixture.store(cache, CacheFixture.request("b"), CacheFixture.response(200, self.fresh, path: "b"), body: Array("b".utf8))
        let other = try #require(CacheFixture.entryFiles(directory).first { $0 != file.lastPathComponent })
        try FileManager.default.removeItem(at: directory.appending(path: other))
        try FileManager.default.copyItem(at: file, to: directory.appending(path: other))
        #expect(try self.reopened(directory).anyStoredEntry(for: CacheFixture.request("b")) == nil)
    }

    /// An entry file owned by another user (planted in a shared or loosely kept directory) is
    /// never served, and left alone (a hostile pass served one planted in a 1777 directory).
    @Test(.enabled(if: geteuid() == 0, "needs root to give a file away")) func anEntryOwnedByAnotherUserIsNotServed() throws {
        let directory = try temporaryFolder()
        let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.fresh))
        let name = try #require(CacheFixture.entryFiles(directory).first)
        let path = directory.appending(path: name).path
        #expect(chown(path, 65534, 65534) == 0)
        let reopened = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
        #expect(reopened.anyStoredEntry(for: CacheFixture.request()) == nil)
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) == nil)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func aVanishedFileIsAMiss() throws {
        let (directory, file) = try self.storedEntry()
        let cache = try self.reopened(directory)
        try FileManager.default.removeItem(at: file)
        #expect(CacheFixture.kind(cache.decision(for: CacheFixture.request(), now: CacheFixture.now)) == "miss")
        #expect(cache.currentDiskUsage == 0)
    }

    @Test func anOpenEntryReadsWholeWhileAnotherProcessReplacesOrRemovesIt() throws {
        let (directory, file) = try self.storedEntry()
        let cache = try self.reopened(directory)
        let entry = try #require(cache.anyStoredEntry(for: CacheFixture.request()))
        let other = try self.reopened(directory)
        CacheFixture.store(other, CacheFixture.request(), CacheFixture.response(200, self.fresh), body: Array("new".utf8))
        #expect(try entry.readBody() == self.body)
        try FileManager.default.removeItem(at: file)
        #expect(try entry.readBody() == self.body)
    }

    @Test func anUncommittedWriterLeavesNothingVisible() throws {
        let directory = try temporaryFolder()
        let cache = try self.reopened(directory)
        var writer = cache.writer(for: CacheFixture.request(), response: CacheFixture.response(200, self.fresh), requestTime: CacheFixture.now, responseTime: CacheFixture.now)
        writer?.append(ByteBuffer(bytes: self.body))
        #expect(CacheFixture.entryFiles(directory).isEmpty)
        #expect(try self.reopened(directory).anyStoredEntry(for: CacheFixture.request()) == nil)
        writer = nil
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func deadWritersTemporaryFilesAreRemovedOnOpening() async throws {
        let directory = try temporaryFolder()
        // A real process, killed with SIGKILL, that "was writing" the temporary file named after it.
        let child = try ChildProcess.start(URL(fileURLWithPath: "/bin/sleep"), ["30"], in: directory, stdout: nil, stderr: try temporaryFolder().appending(path: "sleep.err"))
        let dead = directory.appending(path: "\(DiskCacheStore.temporaryPrefix)\(child.pid)-X")
        try Data(CacheFileFormat.headMagic + [0, 0, 1]).write(to: dead)
        child.send(SIGKILL)
        let exit = await child.wait()
        #expect(exit.signal == SIGKILL)
        let live = directory.appending(path: "\(DiskCacheStore.temporaryPrefix)\(getpid())-Y")
        try Data([1]).write(to: live)
        let cache = try self.reopened(directory)
        #expect(cache.currentDiskUsage == 0)
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: live.path), "a live writer's file stays")
        #expect(CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, self.fresh)))
        #expect(try self.reopened(directory).anyStoredEntry(for: CacheFixture.request()) != nil)
    }
}
