import Foundation
import Lupine
import LupineTestServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A finished download (or a written multipart body) replaces only a regular file, and only when
/// asked: directories, FIFOs and links to nothing are typed errors that leave them as they were;
/// a symbolic link is followed.
@Suite struct DownloadDestinationSafetyTests {
    /// Downloads 1000 bytes into `sandbox.work` as the download folder, to `target` with `options`.
    private func download(to target: URL, options: DownloadOptions, in sandbox: Sandbox) async throws -> Result<URL, LupineError> {
        try await withSessionManager { server, manager in
            manager.downloadDirectory = sandbox.work
            do {
                let response = try await manager.download(Request(url: server.baseURL.appending(path: "bytes/1000"))) { _, _ in (target, options) }
                return .success(try #require(response.value))
            } catch let error as LupineError {
                return .failure(error)
            }
        }
    }

    private func notReplaceable(_ result: Result<URL, LupineError>) -> String? {
        guard case .failure(.downloadFailed(.destinationNotReplaceable(_, let reason))) = result else { return nil }
        return reason
    }

    @Test func aDirectoryIsNeverReplaced() async throws {
        let sandbox = try Sandbox()
        let folder = sandbox.work.appending(path: "keep")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: folder.appending(path: "f"))
        let result = try await self.download(to: folder, options: [.removePreviousFile], in: sandbox)
        #expect(self.notReplaceable(result) == "is a directory")
        #expect(try Data(contentsOf: folder.appending(path: "f")) == Data("inside".utf8))
        // The temporary file this download made is gone too.
        #expect(try sandbox.workContents() == ["keep"])
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aFIFOIsNeverReplaced() async throws {
        let sandbox = try Sandbox()
        let fifo = sandbox.work.appending(path: "fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let result = try await self.download(to: fifo, options: [.removePreviousFile], in: sandbox)
        #expect(self.notReplaceable(result) == "is a device, FIFO or socket")
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func aSymbolicLinkIsFollowedAndKept() async throws {
        let sandbox = try Sandbox()
        let real = sandbox.work.appending(path: "real.bin")
        try Data("old".utf8).write(to: real)
        let link = sandbox.work.appending(path: "link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.bin")
        let result = try await self.download(to: link, options: [.removePreviousFile], in: sandbox)
        #expect(try result.get().lastPathComponent == "real.bin")
        #expect(Array(try Data(contentsOf: real)) == DeterministicBytes.bytes(in: 0..<1000))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.bin")

        let dangling = sandbox.work.appending(path: "dangling")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "../outside/new.bin")
        let refused = try await self.download(to: dangling, options: [.removePreviousFile], in: sandbox)
        #expect(self.notReplaceable(refused) == "is a symbolic link to nothing")
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aRegularFileIsReplacedOnlyWhenAsked() async throws {
        let sandbox = try Sandbox()
        let existing = sandbox.work.appending(path: "existing.bin")
        try Data("mine".utf8).write(to: existing)
        let kept = try await self.download(to: existing, options: [], in: sandbox)
        guard case .failure(.downloadFailed(.cannotMoveFile)) = kept else {
            Issue.record("expected cannotMoveFile, got \(kept)")
            return
        }
        #expect(try Data(contentsOf: existing) == Data("mine".utf8))
        let replaced = try await self.download(to: existing, options: [.removePreviousFile], in: sandbox)
        #expect(try replaced.get() == existing)
        #expect(try sandbox.workContents() == ["existing.bin"])
    }

    @Test func aMultipartBodyNeverReplacesADirectory() async throws {
        let sandbox = try Sandbox()
        let folder = sandbox.work.appending(path: "body")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: folder.appending(path: "f"))
        let request = try HTTPRequestSerializer().multipartFormRequest(method: .POST, urlString: "http://127.0.0.1:9/post", parameters: ["a": "b"]) { _ in }
        await #expect(throws: LupineError.self) {
            _ = try await HTTPRequestSerializer().requestWithMultipartFormRequest(request, writingStreamContentsTo: folder)
        }
        #expect(try Data(contentsOf: folder.appending(path: "f")) == Data("inside".utf8))
        #expect(try sandbox.workContents() == ["body"])
        let file = sandbox.work.appending(path: "body.txt")
        let written = try await HTTPRequestSerializer().requestWithMultipartFormRequest(request, writingStreamContentsTo: file)
        guard case .file(let url) = written.body else {
            Issue.record("expected a file body")
            return
        }
        #expect(url == file)
        #expect(try sandbox.workContents() == ["body", "body.txt"])
    }
}
