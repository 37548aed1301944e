import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// 256 MiB downloaded by a real `lupine get` process whose standard output, a FIFO, is read
/// slower than the server sends: the body's consumer (the process writing to the FIFO) blocks
/// again and again, and the transport must hold its socket reads back each time instead of
/// buffering what the server sends meanwhile. The process's peak memory stays flat.
@Suite(.timeLimit(.minutes(20))) struct SlowReaderFlatMemoryTests {
    @Test func a256MiBBodyReadSlowlyThroughAFIFOKeepsMemoryFlat() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let length = 256 << 20
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appending(path: "body")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // Opened for reading first, without waiting for a writer: the child's shell opens the
        // write end while this process is still suspended spawning it.
        let descriptor = open(fifo.path, O_RDONLY | O_NONBLOCK)
        try #require(descriptor >= 0)
        let reader = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        // GNU time forks lupine from a small process and reports its own peak memory.
        let peak = folder.appending(path: "peak")
        let process = try ChildProcess.start(
            URL(fileURLWithPath: "/usr/bin/time"),
            ["-f", "%M", "-o", peak.path, LupineCommandLineTests.executable.path, "get", server.baseURL.absoluteString + "/bytes/\(length)"],
            in: folder,
            stdout: fifo,
            stderr: folder.appending(path: "stderr")
        )
        let (received, matches) = try await onOwnThread { try Self.readSlowly(reader) }
        let exit = await process.wait()
        #expect(exit.status == 0)
        #expect(received == length)
        #expect(matches)
        let peakKiB = try #require(Int(String(decoding: try Data(contentsOf: peak), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        // The same bound as for 128 MiB read at full speed: a process buffering what its slow
        // reader has not taken yet would go past it long before the body's end. (Under a
        // sanitizer the peak is mostly its shadow memory: measured in the plain run only.)
        #expect(Sanitizers.isActive || peakKiB < 96 * 1024, "peak \(peakKiB) KiB")
    }

    /// Reads `handle` to its end in 64 KiB pieces, checking them against the served pattern and
    /// pausing after every 8 MiB: a reader slower than a server on the loopback, by design (the
    /// pauses make it slow; nothing waits on them). Returns the bytes read and whether all matched.
    private static func readSlowly(_ handle: FileHandle) throws -> (Int, Bool) {
        var received = 0
        var matches = true
        while let piece = try handle.read(upToCount: 64 << 10), !piece.isEmpty {
            matches = matches && piece.elementsEqual(DeterministicBytes.bytes(in: received..<(received + piece.count)))
            received += piece.count
            if received % (8 << 20) < piece.count {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        return (received, matches)
    }
}
