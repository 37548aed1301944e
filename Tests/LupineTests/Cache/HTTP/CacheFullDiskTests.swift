import Foundation
import LupineTestSupport
import Testing

@testable import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A disk cache on a full disk: a real, tiny tmpfs. Storing fails quietly, leaves nothing behind,
/// and the cache keeps working.
@Suite struct CacheFullDiskTests {
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskDropsTheEntryAndLeavesNoFile() async throws {
        let mountPoint = try temporaryFolder()
        try await #require(Self.run("/bin/mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.path) == 0, "mount failed")
        let outcome = Result { try Self.fill(mountPoint) }
        #expect(try await Self.run("/bin/umount", mountPoint.path) == 0)
        try outcome.get()
    }

    /// Stores a 4 MiB response in a cache on the 1 MiB file system at `mountPoint`, then a small one.
    private static func fill(_ mountPoint: URL) throws {
        let directory = mountPoint.appending(path: "cache")
        let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 30, directory: directory)
        let response = CacheFixture.response(200, [("Cache-Control", "max-age=600")])
        let writer = try #require(cache.writer(for: CacheFixture.request(), response: response, requestTime: CacheFixture.now, responseTime: CacheFixture.now))
        let chunk = ByteBuffer(bytes: [UInt8](repeating: 0x5A, count: 65_536))
        for _ in 0..<64 {
            writer.append(chunk)
        }
        writer.commit()
        #expect(chunk.readableBytes == 65_536, "the caller's chunk is untouched")
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(cache.currentDiskUsage == 0)
        // With the space back, storing works again.
        #expect(CacheFixture.store(cache, CacheFixture.request("small"), CacheFixture.response(200, [("Cache-Control", "max-age=600")], path: "small")))
        #expect(CacheFixture.entryFiles(directory).count == 1)
    }

    /// Runs `command` with `arguments` and returns its exit status.
    private static func run(_ command: String, _ arguments: String...) async throws -> Int32 {
        let logs = try temporaryFolder()
        let process = try ChildProcess.start(URL(fileURLWithPath: command), arguments, in: logs, stdout: nil, stderr: logs.appending(path: "stderr"))
        return await process.wait().status
    }
}
