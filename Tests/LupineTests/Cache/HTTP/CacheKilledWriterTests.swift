import Foundation
import LupineTestSupport
import Testing

@testable import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process killed with SIGKILL in the middle of storing a response leaves a cache that opens
/// cleanly: the child is this test bundle itself, running ``writerChild()`` only.
@Suite struct CacheKilledWriterTests {
    /// The file whose presence in the working directory makes ``writerChild()`` act.
    private static let marker = "http-cache-writer-child"

    @Test func aWriterKilledMidStoreLeavesACacheThatOpensCleanly() async throws {
        let work = try temporaryFolder()
        try Data().write(to: work.appending(path: Self.marker))
        let ready = work.appending(path: "ready")
        #expect(mkfifo(ready.path, 0o600) == 0)
        let listener = open(ready.path, O_RDONLY | O_NONBLOCK)
        try #require(listener >= 0)
        defer { close(listener) }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0])
        let logs = try temporaryFolder()
        let child = try ChildProcess.start(
            bundle, ["--testing-library", "swift-testing", "--filter", "CacheKilledWriterTests/writerChild"],
            in: work, stdout: logs.appending(path: "out"), stderr: logs.appending(path: "err"))
        // Wait (at most a minute) for the child to say it is in the middle of a store.
        let polled = await withCheckedContinuation { continuation in
            Thread {
                var signal = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                continuation.resume(returning: poll(&signal, 1, 60_000))
            }.start()
        }
        child.send(SIGKILL)
        let exit = await child.wait()
        try #require(polled == 1, "the child never got to the middle of a store: \((try? String(contentsOf: logs.appending(path: "out"), encoding: .utf8)) ?? "")")
        #expect(exit.signal == SIGKILL)
        let directory = work.appending(path: "cache")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let prefix = "\(DiskCacheStore.temporaryPrefix)\(child.pid)-"
        #expect(leftovers.count == 1 && leftovers.allSatisfy { $0.hasPrefix(prefix) }, "the killed writer's temporary file is there: \(leftovers)")
        let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 30, directory: directory)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(cache.anyStoredEntry(for: CacheFixture.request()) == nil)
        #expect(CacheFixture.store(cache, CacheFixture.request(), CacheFixture.response(200, [("Cache-Control", "max-age=60")])))
        #expect(try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 30, directory: directory).anyStoredEntry(for: CacheFixture.request()) != nil)
    }

    /// The child's part: does nothing unless started by the test above (in a folder holding the
    /// marker); then stores half a response, says so through the `ready` FIFO and waits to be killed.
    @Test func writerChild() throws {
        let work = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        guard FileManager.default.fileExists(atPath: work.appending(path: Self.marker).path) else { return }
        let cache = try HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 30, directory: work.appending(path: "cache"))
        let response = CacheFixture.response(200, [("Cache-Control", "max-age=60")])
        let writer = try #require(cache.writer(for: CacheFixture.request(), response: response, requestTime: CacheFixture.now, responseTime: CacheFixture.now))
        for _ in 0..<16 {
            writer.append(ByteBuffer(bytes: [UInt8](repeating: 0x42, count: 65_536)))
        }
        let ready = open(work.appending(path: "ready").path, O_WRONLY)
        _ = write(ready, "!", 1)
        // Stay mid-store until the parent's SIGKILL (bounded, should the parent be gone).
        sleep(60)
        writer.abandon()
    }
}
