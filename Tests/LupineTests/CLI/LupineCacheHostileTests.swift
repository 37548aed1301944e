import Foundation
import LupineTestSupport
import Lupine
import LupineTestServer
import Testing

/// `--cache DIR` and `-b/--session FILE` pointed by a user at things that are not a cache or a
/// cookie file, with the real `lupine` process and real files: what is the user's stays as it
/// was, byte for byte.
@Suite struct LupineCacheHostileTests {
    /// Runs `executable` (which starts `lupine` its own way) in `directory` to its end.
    private static func run(_ executable: String, _ arguments: [String], in directory: URL) async throws -> (status: Int32, stdout: String, stderr: String) {
        let outputs = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: outputs) }
        let stdout = outputs.appending(path: "stdout")
        let stderr = outputs.appending(path: "stderr")
        let process = try ChildProcess.start(URL(fileURLWithPath: executable), arguments, in: directory, stdout: stdout, stderr: stderr)
        let exit = await process.wait()
        return (exit.status, try String(contentsOf: stdout, encoding: .utf8), try String(contentsOf: stderr, encoding: .utf8))
    }

    @Test func aFileThatHoldsNoCookieIsReadButNeverReplaced() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        // A file named by mistake: text that is no cookie line, and bytes that are no text.
        var notes = Array("my notes\nnot\ta\tcookie\n".utf8)
        notes += (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let file = sandbox.work.appending(path: "notes.txt")
        try Data(notes).write(to: file)
        let run = try await LupineCommandLineTests.lupine(
            ["get", server.baseURL.absoluteString + "/cookies/set?session=abc", "--session", "notes.txt"], in: sandbox.work)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("not a cookie file"), "\(run.stderr)")
        #expect(try Array(Data(contentsOf: file)) == notes)
        #expect(try sandbox.workContents() == ["notes.txt"])

        // A file that does hold a cookie among its garbage is the jar, and is written back.
        try Data("garbage line\n127.0.0.1\tFALSE\t/\tFALSE\t0\tkept\tyes\n".utf8).write(to: file)
        let kept = try await LupineCommandLineTests.lupine(
            ["get", server.baseURL.absoluteString + "/cookies/set?session=abc", "--session", "notes.txt"], in: sandbox.work)
        #expect(kept.status == 0, "\(kept.stderr)")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\tkept\tyes") && text.contains("\tsession\tabc"), "\(text)")
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser"), "runs lupine as nobody, for whom permissions hold"))
    func aReadOnlyCookieFileIsLeftAsItIs() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let nobody: [FileAttributeKey: Any] = [.ownerAccountID: 65534]
        try FileManager.default.setAttributes(nobody, ofItemAtPath: sandbox.work.path)
        let file = sandbox.work.appending(path: "frozen.txt")
        let frozen = Data("# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tkept\tyes\n".utf8)
        try frozen.write(to: file)
        try FileManager.default.setAttributes(nobody.merging([.posixPermissions: 0o444]) { $1 }, ofItemAtPath: file.path)
        let before = TreeSnapshot(sandbox.work).entries["frozen.txt"]
        // A copy nobody can reach: the build folder may sit under a directory only root may enter.
        // cp writes it, so no child this process forks meanwhile inherits a descriptor open for
        // writing on it (which makes executing it fail with ETXTBSY).
        let executable = sandbox.work.appending(path: "lupine")
        let copied = try await Self.run("/bin/cp", [LupineCommandLineTests.executable.path, executable.path], in: sandbox.work)
        try #require(copied.status == 0, "\(copied.stderr)")
        // The folder is nobody's, so only the file's own mode says it must not be replaced.
        let run = try await Self.run(
            "/usr/sbin/runuser",
            ["-u", "nobody", "--", executable.path, "get", server.baseURL.absoluteString + "/cookies/set?added=1", "--session", "frozen.txt"],
            in: sandbox.work)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("read-only"), "\(run.stderr)")
        // The file's cookie was sent all the same.
        #expect(run.stdout.contains("\"kept\""), "\(run.stdout)")
        #expect(try Data(contentsOf: file) == frozen)
        #expect(TreeSnapshot(sandbox.work).entries["frozen.txt"] == before)
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aPathThatIsNotUTF8IsRefusedRatherThanRenamed() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let url = countedURL(server, "not-utf8", [("Cache-Control", "max-age=60")]).absoluteString
        // Swift strings cannot hold the byte 0xFF: the shell's printf makes it.
        for (verb, option) in [("get", "--cache"), ("get", "--session"), ("download", "-o")] {
            let script = #"exec "$0" "$1" "$2" "$3" "$(printf 'caf\351')""#
            let run = try await Self.run("/bin/sh", ["-c", script, LupineCommandLineTests.executable.path, verb, url, option], in: sandbox.work)
            #expect(run.status != 0, "\(option)")
            #expect(run.stderr.contains("argument 4 is not UTF-8"), "\(option): \(run.stderr)")
            // Neither `caf\u{FFFD}` nor anything else was created, and nothing was sent.
            #expect(try sandbox.workContents().isEmpty, "\(option)")
        }
        #expect(server.counted("not-utf8").requests == 0)
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func anEmptyCacheOrCookiePathIsRefusedRatherThanTakenForTheWorkingDirectory() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        try Data("the user's\n".utf8).write(to: sandbox.work.appending(path: "notes.txt"))
        let url = countedURL(server, "empty-path", [("Cache-Control", "max-age=60")]).absoluteString
        for (verb, option) in [("get", "--cache"), ("download", "--cache"), ("get", "--session"), ("get", "-b")] {
            let run = try await LupineCommandLineTests.lupine([verb, url, option, ""], in: sandbox.work)
            #expect(run.status == 64, "\(verb) \(option): \(run.stderr)")
            #expect(run.stderr.contains("needs a"), "\(verb) \(option): \(run.stderr)")
        }
        #expect(try sandbox.workContents() == ["notes.txt"])
        #expect(server.counted("empty-path").requests == 0)
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func ctrlCDuringAStoreLeavesNothingInTheCacheFolder() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let running = try await LupineCacheAndCookieTests.startStalledStore(from: server, in: sandbox)
        running.process.send(SIGINT)
        let run = try await running.finish()
        #expect(run.status == 128 + SIGINT, "\(run.stderr)")
        #expect(run.stderr.contains("stopped by SIGINT"), "\(run.stderr)")
        // What was received reached standard output; the unfinished entry is gone at once.
        #expect(run.output.count == 400_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.work.appending(path: "cache").path).isEmpty)
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func theUsersOwnFilesInTheCacheDirectoryAreNeverReadOrRemoved() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let cache = sandbox.work.appending(path: "mine")
        try FileManager.default.createDirectory(at: cache.appending(path: "sub"), withIntermediateDirectories: true)
        let plain = ["notes.txt", "sub/deeper.txt", ".hidden"]
        // Names the cache uses for its entries and for a dead writer's temporary file (process
        // 2147483646 does not exist), holding the user's text rather than the cache's format.
        let lookalikes = [String(repeating: "0", count: 32) + "-" + String(repeating: "f", count: 32) + ".lpc", ".lpc-tmp-2147483646-mine"]
        for (index, name) in (plain + lookalikes).enumerated() {
            try Data("the user's file \(index), not a cache entry, long enough to have a head\n".utf8).write(to: cache.appending(path: name))
        }
        let before = TreeSnapshot(cache)
        let url = countedURL(server, "users-folder", [("Cache-Control", "max-age=60")]).absoluteString
        for _ in 0..<2 {
            let run = try await LupineCommandLineTests.lupine(["get", url, "--cache", "mine"], in: sandbox.work)
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(server.counted("users-folder").requests == 1)
        let after = TreeSnapshot(cache).entries
        for (index, name) in plain.enumerated() {
            #expect(after[name] == before.entries[name], "\(name)")
            let text = try String(contentsOf: cache.appending(path: name), encoding: .utf8)
            #expect(text == "the user's file \(index), not a cache entry, long enough to have a head\n")
        }
        // Files merely named like the cache's own (an entry, a dead writer's temporary file)
        // are someone else's: neither read as entries nor removed.
        for name in lookalikes {
            #expect(after[name] == before.entries[name], "\(name)")
        }
        #expect(sandbox.unchangedOutsideWork())
    }
}
