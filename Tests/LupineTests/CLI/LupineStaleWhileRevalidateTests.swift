import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// `lupine get --cache DIR` meeting a `stale-while-revalidate` entry, with the real process: the
/// stale response is written at once, and the background revalidation then has the process's
/// last moments (at most `--timeout`, or 30 seconds) to refresh the entry for the next run. A
/// one-shot process that abandoned it would never refresh anything.
@Suite struct LupineStaleWhileRevalidateTests {
    @Test func theBackgroundRevalidationRefreshesTheEntryBeforeTheProcessEnds() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let fields = [("Cache-Control", "max-age=0, stale-while-revalidate=600"), ("ETag", "\"c\""), ("X-Seen", "{count}")]
        let url = countedURL(server, "cli-swr", fields).absoluteString
        let first = try await LupineCommandLineTests.lupine(["get", url, "--cache", "cache"], in: sandbox.work)
        #expect(first.status == 0, "\(first.stderr)")
        let stale = try await LupineCommandLineTests.lupine(["get", url, "--cache", "cache", "-v"], in: sandbox.work)
        #expect(stale.status == 0, "\(stale.stderr)")
        #expect(stale.output == first.output)
        #expect(stale.stderr.contains("a stale response came from the cache"), "\(stale.stderr)")
        // The conditional background request was answered (304) before the process ended...
        #expect(server.counted("cli-swr") == (2, 1))
        // ...and its head stored: the next run is served the refreshed entry (and the longest
        // timeout, a year, is no trap).
        let next = try await LupineCommandLineTests.lupine(["get", url, "--cache", "cache", "-v", "--timeout", "31536000"], in: sandbox.work)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stderr.contains("X-Seen: 2"), "\(next.stderr)")
        #expect(next.output == first.output)
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aRevalidationThatHangsIsAbandonedAtTheTimeoutOrOnCtrlC() async throws {
        let silent = try ClosedPort(silent: true)
        let sandbox = try Sandbox()
        let cacheFolder = sandbox.work.appending(path: "cache")
        let url = silent.url.appending(path: "page")
        // The entry a first run against a server that answered would have left; the server now hangs.
        let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: cacheFolder)
        let head = ResponseHead(
            status: .ok, headers: HTTPHeaders([("Cache-Control", "max-age=0, stale-while-revalidate=600"), ("ETag", "\"h\"")]), url: url)
        await cache.store(CachedResponse(head: head, data: Array("kept body".utf8), storedAt: Date()), for: Request(url: url))
        let stored = try FileManager.default.contentsOfDirectory(atPath: cacheFolder.path)
        #expect(stored.count == 1)

        // The timeout ends the wait: the body was delivered, the command succeeds.
        let timedOut = try await LupineCommandLineTests.lupine(["get", url.absoluteString, "--cache", "cache", "--timeout", "1"], in: sandbox.work)
        #expect(timedOut.status == 0, "\(timedOut.stderr)")
        #expect(String(decoding: timedOut.output, as: UTF8.self) == "kept body")

        // Ctrl-C, once the stale body is out, ends the wait the same way.
        let running = try LupineCommandLineTests.start(["get", url.absoluteString, "--cache", "cache"], in: sandbox.work)
        try await running.whileRunning { try await LupineDownloadInterruptionTests.waitUntil(running.stdout, holds: 9) }
        running.process.send(SIGINT)
        let interrupted = try await running.finish()
        #expect(String(decoding: interrupted.output, as: UTF8.self) == "kept body", "\(interrupted.stderr)")
        // Nothing half-written stays: the entry is the one stored, as it was.
        #expect(try FileManager.default.contentsOfDirectory(atPath: cacheFolder.path) == stored)
        #expect(sandbox.unchangedOutsideWork())
    }
}
