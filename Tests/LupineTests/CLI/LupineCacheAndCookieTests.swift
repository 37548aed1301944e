import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// `--cache DIR`, `--no-cache` and `-b/--cookie-jar/--session FILE`, with the real `lupine`
/// process run twice against one folder in a sandbox: what the first run keeps, the second uses.
@Suite struct LupineCacheAndCookieTests {
    @Test func aSecondRunIsAnsweredFromTheFirstRunsCache() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let url = countedURL(server, "cli-cache", [("Cache-Control", "max-age=60")]).absoluteString
        let first = try await LupineCommandLineTests.lupine(["get", url, "--cache", "cache"], in: sandbox.work)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await LupineCommandLineTests.lupine(["get", url, "--cache", "cache", "-v"], in: sandbox.work)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.output == first.output)
        #expect(second.stderr.contains("came from the cache"), "\(second.stderr)")
        #expect(server.counted("cli-cache").requests == 1)

        let reloaded = try await LupineCommandLineTests.lupine(["get", url, "--cache", "cache", "--no-cache"], in: sandbox.work)
        #expect(reloaded.status == 0)
        #expect(server.counted("cli-cache").requests == 2)
        #expect(try sandbox.workContents() == ["cache"])
        #expect(sandbox.unchangedOutsideWork())
    }

    /// `-X` sends any method, as curl's does; an unknown one is unsafe, so its success invalidates
    /// the stored response (RFC 9111 §4.4, cache-tests.fyi's `invalidate-M-SEARCH`). What is not
    /// a token never reaches the request line.
    @Test func aMethodGivenByXIsSentAndAnUnknownOneInvalidates() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let url = countedURL(server, "cli-method", [("Cache-Control", "max-age=60")]).absoluteString
        for arguments in [["get", url], ["get", url, "-X", "M-SEARCH"], ["get", url], ["get", url]] {
            let run = try await LupineCommandLineTests.lupine(arguments + ["--cache", "cache"], in: sandbox.work)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        // The first, the M-SEARCH, and the GET after it; the last GET is a hit.
        #expect(server.counted("cli-method").requests == 3)
        for method in ["GET /x HTTP/1.1", "", "GET\r\nX-Injected: 1", "MÉTHODE", String(repeating: "A", count: 65)] {
            let refused = try await LupineCommandLineTests.lupine(["get", url, "-X", method], in: sandbox.work)
            #expect(refused.status == 64, "\(method.debugDescription): \(refused.stderr)")
            #expect(refused.stderr.contains("-X/--request takes a method name"), "\(refused.stderr)")
        }
        #expect(server.counted("cli-method").requests == 3)
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aStaleResponseFromTheCacheIsSaidSo() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let url = countedURL(server, "cli-stale", [("Cache-Control", "max-age=0"), ("ETag", "\"s\"")]).absoluteString
        let first = try await LupineCommandLineTests.lupine(["get", url, "--cache", "cache"], in: sandbox.work)
        #expect(first.status == 0, "\(first.stderr)")
        // The request's max-stale accepts the stale entry: nothing is sent.
        let second = try await LupineCommandLineTests.lupine(["get", url, "Cache-Control:max-stale=600", "--cache", "cache", "-v"], in: sandbox.work)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.output == first.output)
        #expect(second.stderr.contains("lupine: a stale response came from the cache"), "\(second.stderr)")
        #expect(server.counted("cli-stale").requests == 1)
        #expect(sandbox.unchangedOutsideWork())
    }

    /// `lupine get --cache cache` in `sandbox`'s work folder, started on a storable response (200
    /// with an ETag) whose body stalls after 400,000 of its 1,000,000 bytes, once those reached
    /// standard output and the entry being stored is in the folder, not yet published.
    static func startStalledStore(from server: LupineTestServer, in sandbox: Sandbox) async throws -> LupineCommandLineTests.Running {
        let stalled = server.faultsBaseURL.absoluteString + "/interrupt?bytes=1000000&at=400000&then=stall"
        let running = try LupineCommandLineTests.start(["get", stalled, "--cache", "cache"], in: sandbox.work)
        try await running.whileRunning { try await LupineDownloadInterruptionTests.waitUntil(running.stdout, holds: 400_000) }
        let cache = sandbox.work.appending(path: "cache")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: cache.path).isEmpty, "the entry being stored")
        return running
    }

    @Test func aKillDuringAStoreLeavesACacheThatOpensCleanly() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let running = try await Self.startStalledStore(from: server, in: sandbox)
        running.process.send(SIGKILL)
        #expect(try await running.finish().status == 128 + SIGKILL)

        let url = countedURL(server, "after-kill", [("Cache-Control", "max-age=60")]).absoluteString
        for _ in 0..<2 {
            let run = try await LupineCommandLineTests.lupine(["get", url, "--cache", "cache"], in: sandbox.work)
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(server.counted("after-kill").requests == 1)
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func cookiesSetInOneRunAreSentInTheNext() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let base = server.baseURL.absoluteString
        let login = try await LupineCommandLineTests.lupine(["get", base + "/cookies/set?session=abc", "-b", "jar.txt"], in: sandbox.work)
        #expect(login.status == 0, "\(login.stderr)")
        let jar = sandbox.work.appending(path: "jar.txt")
        let text = try String(contentsOf: jar, encoding: .utf8)
        #expect(text.contains("\tsession\tabc"), "\(text)")
        let mode = (try FileManager.default.attributesOfItem(atPath: jar.path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)

        for option in ["--session", "--cookie-jar"] {
            let later = try await LupineCommandLineTests.lupine(["get", base + "/cookies", option, "jar.txt"], in: sandbox.work)
            let cookies = LupineCommandLineTests.json(later.stdout)?["cookies"] as? [String: String]
            #expect(cookies == ["session": "abc"], "\(option): \(later.stdout) \(later.stderr)")
        }
        // -v shows the request as sent: the jar's cookie is in it (redacted).
        let shown = try await LupineCommandLineTests.lupine(["get", base + "/cookies", "-b", "jar.txt", "-v"], in: sandbox.work)
        #expect(shown.stderr.split(separator: "\n").contains("Cookie: <redacted>"), "\(shown.stderr)")
        #expect(try sandbox.workContents() == ["jar.txt"])
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aHundredThousandLineCookieFileIsReadQuicklyAndKeepsItsLatestCookies() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        // As curl writes it, the latest first: 100,000 cookies over 100,000 domains.
        let lines = (0..<100_000).map { ".x\($0).example.org\tTRUE\t/\tFALSE\t4000000000\tn\($0)\tv" }
        try Data(("# Netscape HTTP Cookie File\n" + lines.joined(separator: "\n") + "\n").utf8).write(to: sandbox.work.appending(path: "jar.txt"))
        let started = ContinuousClock.now
        let run = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/get", "-b", "jar.txt"], in: sandbox.work)
        // Only to tell seconds from minutes: a debug build on a loaded machine takes a few seconds.
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(run.status == 0, "\(run.stderr)")
        let written = try String(contentsOf: sandbox.work.appending(path: "jar.txt"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(written.count == 3000)
        #expect(written.first?.hasPrefix(".x0.example.org\t") == true, "\(written.prefix(1))")
        #expect(written.last?.hasPrefix(".x2999.example.org\t") == true, "\(written.suffix(1))")
        #expect(try sandbox.workContents() == ["jar.txt"])
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aCookieFileWithGarbageIsReadWithWarningsAndAFolderIsNeverReplaced() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let base = server.baseURL.absoluteString
        let garbage = "# Netscape HTTP Cookie File\nnot a cookie line\n127.0.0.1\tFALSE\t/\tFALSE\t0\tkept\tyes\n\u{0}\u{1}binary\n"
        try Data(garbage.utf8).write(to: sandbox.work.appending(path: "jar.txt"))
        let read = try await LupineCommandLineTests.lupine(["get", base + "/cookies", "-b", "jar.txt"], in: sandbox.work)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stderr.contains("warning"), "\(read.stderr)")
        #expect(LupineCommandLineTests.json(read.stdout)?["cookies"] as? [String: String] == ["kept": "yes"])

        try FileManager.default.createDirectory(at: sandbox.work.appending(path: "folder"), withIntermediateDirectories: false)
        try Data("inside\n".utf8).write(to: sandbox.work.appending(path: "folder/file.txt"))
        let folder = try await LupineCommandLineTests.lupine(["get", base + "/cookies/set?a=1", "-b", "folder"], in: sandbox.work)
        #expect(folder.status != 0 || folder.stderr.contains("warning"), "\(folder.stderr)")
        #expect(try String(contentsOf: sandbox.work.appending(path: "folder/file.txt"), encoding: .utf8) == "inside\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.work.appending(path: "folder").path) == ["file.txt"])
        #expect(sandbox.unchangedOutsideWork())
    }
}
