import Foundation
import LupineTestServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `lupine download` never removes or replaces what it did not make: run as a real process in
/// a sandbox's `work` folder, with a file beside `work` that must survive every case.
@Suite struct LupineDownloadSafetyTests {
    private func download(_ url: String, _ extra: [String] = [], in sandbox: Sandbox) async throws -> LupineCommandLineTests.Outcome {
        try await LupineCommandLineTests.lupine(["download", url] + extra, in: sandbox.work)
    }

    @Test func aDirectoryIsNeverReplaced() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let folder = sandbox.work.appending(path: "dir")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("inside\n".utf8).write(to: folder.appending(path: "f"))
        for output in ["dir", ".", folder.path, sandbox.root.path] {
            let outcome = try await self.download(server.baseURL.absoluteString + "/bytes/100", ["-o", output], in: sandbox)
            #expect(outcome.status == 1)
            #expect(outcome.stderr.contains("is a directory"), "\(outcome.stderr)")
        }
        #expect(try Data(contentsOf: folder.appending(path: "f")) == Data("inside\n".utf8))
        #expect(try sandbox.workContents() == ["dir"])
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aDeviceIsWrittenIntoNotReplaced() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        // A node with /dev/null's numbers (major 1, minor 3, as glibc's makedev packs them),
        // inside the sandbox; making one needs root, which this suite has here.
        let node = sandbox.work.appending(path: "null")
        guard mknod(node.path, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 else {
            Issue.record("mknod needs root: \(String(cString: strerror(errno)))")
            return
        }
        let outcome = try await self.download(server.baseURL.absoluteString + "/bytes/5000", ["-o", "null"], in: sandbox)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        var info = stat()
        #expect(lstat(node.path, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aFIFOGetsTheBodyStreamedIntoIt() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let fifo = sandbox.work.appending(path: "pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let running = try LupineCommandLineTests.start(["download", server.baseURL.absoluteString + "/bytes/300000", "-o", "pipe"], in: sandbox.work)
        let received = await Self.readToEnd(fifo)
        let outcome = try await running.finish()
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(received == DeterministicBytes.bytes(in: 0..<300_000))
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        let continued = try await self.download(server.baseURL.absoluteString + "/bytes/10", ["-o", "pipe", "--continue"], in: sandbox)
        #expect(continued.status == 1)
        #expect(continued.stderr.contains("not a regular file"))
    }

    @Test func aSymbolicLinkIsFollowed() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let real = sandbox.work.appending(path: "real.bin")
        try Data("old".utf8).write(to: real)
        try FileManager.default.createSymbolicLink(atPath: sandbox.work.appending(path: "link").path, withDestinationPath: "real.bin")
        let outcome = try await self.download(server.baseURL.absoluteString + "/bytes/4000", ["-o", "link"], in: sandbox)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(Array(try Data(contentsOf: real)) == DeterministicBytes.bytes(in: 0..<4000))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: sandbox.work.appending(path: "link").path) == "real.bin")
        try FileManager.default.createSymbolicLink(atPath: sandbox.work.appending(path: "dangling").path, withDestinationPath: "../outside/new")
        let dangling = try await self.download(server.baseURL.absoluteString + "/bytes/10", ["-o", "dangling"], in: sandbox)
        #expect(dangling.status == 1)
        #expect(dangling.stderr.contains("symbolic link to nothing"))
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func namesFromTheURLStayInsideTheWorkingDirectory() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let base = server.baseURL.absoluteString + "/anything"
        // Each path, and the file it may produce (nil: an error asking for -o).
        let cases: [(String, String?)] = [
            ("/..", nil), ("/x/..", nil), ("/%2e%2e", nil), ("/.", nil), ("/x/%2E", nil), ("/", nil),
            ("/..%2f..%2fNAME", ".._.._NAME"), ("/~", "~"), ("/a%00b", "a_b"), ("/%7e", "~"),
            ("/x/..%5c..%5cw", ".._.._w"), ("/caf%C3%A9.txt", "café.txt"), ("/a%0Ab", "a_b"),
        ]
        for (path, expected) in cases {
            let sandbox = try Sandbox()
            let outcome = try await self.download(base + path, in: sandbox)
            if let expected {
                #expect(outcome.status == 0, "\(path): \(outcome.stderr)")
                #expect(try sandbox.workContents() == [expected], "\(path)")
            } else {
                #expect(outcome.status == 1, "\(path)")
                #expect(outcome.stderr.contains("-o FILE"), "\(path): \(outcome.stderr)")
                #expect(try sandbox.workContents() == [], "\(path)")
            }
            #expect(sandbox.unchangedOutsideWork(), "\(path)")
        }
    }

    /// A name ending with `/` names a directory, as for `open(2)` and curl: never the file
    /// without the slash, whether one is there, a link to one is, or nothing is.
    @Test func aTrailingSlashNeverNamesAFile() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        try Data("precious".utf8).write(to: sandbox.work.appending(path: "f"))
        try FileManager.default.createSymbolicLink(atPath: sandbox.work.appending(path: "link").path, withDestinationPath: "f")
        for output in ["f/", "link/", "new/", "./new/", sandbox.work.path + "/f/"] {
            let outcome = try await self.download(server.baseURL.absoluteString + "/bytes/10", ["-o", output], in: sandbox)
            #expect(outcome.status == 1, "\(output)")
            #expect(outcome.stderr.contains("ends with /, so it names a directory"), "\(output): \(outcome.stderr)")
        }
        #expect(try Data(contentsOf: sandbox.work.appending(path: "f")) == Data("precious".utf8))
        #expect(try sandbox.workContents() == ["f", "link"])
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aMissingFolderIsAPlainError() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let outcome = try await self.download(server.baseURL.absoluteString + "/bytes/10", ["-o", "missing/dir/f"], in: sandbox)
        #expect(outcome.status == 1)
        #expect(outcome.stderr == "lupine: cannot create \(sandbox.work.path)/missing/dir/f: No such file or directory\n")
        #expect(try sandbox.workContents() == [])
    }

    @Test func anErrorStatusLeavesAnExistingFileAsItWas() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        try Data("precious".utf8).write(to: sandbox.work.appending(path: "kept.txt"))
        let outcome = try await self.download(server.baseURL.absoluteString + "/status/404", ["-o", "kept.txt"], in: sandbox)
        #expect(outcome.status == 4)
        #expect(try Data(contentsOf: sandbox.work.appending(path: "kept.txt")) == Data("precious".utf8))
        let fresh = try await self.download(server.baseURL.absoluteString + "/status/500", ["-o", "new.txt"], in: sandbox)
        #expect(fresh.status == 5)
        #expect(try sandbox.workContents() == ["kept.txt"])
    }

    /// A file longer than the server's body cannot be its start: the `416` says so, and the whole
    /// body that follows is refused with that reason, the file left as it was.
    @Test func aFileLongerThanTheBodyIsNotContinuedNorReplaced() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let before = Data(repeating: 7, count: 1500)
        try before.write(to: sandbox.work.appending(path: "long.bin"))
        let outcome = try await self.download(server.baseURL.absoluteString + "/range/1000", ["-o", "long.bin", "--continue"], in: sandbox)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("the server has 1000 bytes for this URL, fewer than the 1500 already in the file"), "\(outcome.stderr)")
        #expect(try Data(contentsOf: sandbox.work.appending(path: "long.bin")) == before)
        #expect(try sandbox.workContents() == ["long.bin"])
    }

    /// Everything written into the FIFO at `url` until its writer closes it.
    private static func readToEnd(_ url: URL) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: Array(FileHandle(forReadingAtPath: url.path)?.readDataToEndOfFile() ?? Data()))
            }.start()
        }
    }
}
