#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

/// Files that cannot seek or tell their size (a FIFO, `/proc` files, `/dev/zero`) are read to
/// their end and sent chunked, as curl does: as a transport file body, as a session upload from
/// a file, and as multipart file parts.
@Suite struct UnseekableFileBodyTests {
    /// Known text, under a pipe's 64 KiB buffer so that its writer never waits on the reader.
    private static let pipedText = (0..<150).map { "line \($0) through the pipe, ünïcode included\n" }.joined()

    @Test func aFIFOIsUploadedAsAFileBodyToItsEnd() async throws {
        let fifo = try FilledFIFO(contents: Array(Self.pipedText.utf8))
        defer { fifo.release() }
        try await withServerAndTransport { server, transport in
            let echo = try await Self.post(.file(path: fifo.url.path), to: server, with: transport)
            #expect(echo["data"] as? String == Self.pipedText)
            #expect((echo["headers"] as? [String: Any])?["Content-Length"] == nil)
        }
    }

    @Test func aProcFileIsUploadedAsAFileBodyToItsEnd() async throws {
        let version = try String(contentsOfFile: "/proc/version", encoding: .utf8)
        #expect(!version.isEmpty)
        try await withServerAndTransport { server, transport in
            let echo = try await Self.post(.file(path: "/proc/version"), to: server, with: transport)
            #expect(echo["data"] as? String == version)
        }
    }

    @Test func aSessionUploadTaskFromAFIFOSendsItToItsEnd() async throws {
        let fifo = try FilledFIFO(contents: Array(Self.pipedText.utf8))
        defer { fifo.release() }
        try await withSessionManager { _, manager in
            let target = try manager.makeRequest(.POST, "post", parameters: nil, headers: ["Content-Type": "text/plain"])
            let completion: TaskCompletion = await withCheckedContinuation { continuation in
                manager.uploadTask(with: target, fromFile: fifo.url) { continuation.resume(returning: $0) }.resume()
            }
            #expect(completion.error == nil)
            #expect((completion.serializedObject as? [String: any Sendable])?["data"] as? String == Self.pipedText)
        }
    }

    @Test func aFIFOAndAProcFileAreSentAsMultipartFileParts() async throws {
        let fifo = try FilledFIFO(contents: Array(Self.pipedText.utf8))
        defer { fifo.release() }
        let version = try String(contentsOfFile: "/proc/version", encoding: .utf8)
        let regular = try temporaryFile(Array("a regular file\n".utf8), name: "regular.txt")
        try await withSessionManager { _, manager in
            var announcedLength: Int? = -1
            let request = try manager.makeMultipartRequest("post", parameters: ["field": "value"], headers: nil) { form in
                try form.appendPart(fileURL: fifo.url, name: "fifo")
                try form.appendPart(fileURL: URL(fileURLWithPath: "/proc/version"), name: "version")
                try form.appendPart(fileURL: regular, name: "regular")
                announcedLength = form.contentLength
            }
            #expect(announcedLength == nil, "a part of unknown length makes the whole form's length unknown")
            let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
            let echo = try #require(response.value as? [String: any Sendable])
            let files = try #require(echo["files"] as? [String: any Sendable])
            #expect(files["fifo"] as? String == Self.pipedText)
            #expect(files["version"] as? String == version)
            #expect(files["regular"] as? String == "a regular file\n")
            #expect((echo["form"] as? [String: any Sendable])?["field"] as? String == "value")
        }
    }

    @Test func anEmptyRegularFileKeepsItsLengthOfZero() async throws {
        let empty = try temporaryFile([], name: "empty.txt")
        try await withServerAndTransport { server, transport in
            let echo = try await Self.post(.file(path: empty.path), to: server, with: transport)
            #expect(echo["data"] as? String == "")
            #expect((echo["headers"] as? [String: Any])?["Content-Length"] as? String == "0")
        }
    }

    @Test func aDirectoryOrAPathWithANULIsATypedErrorBeforeAnythingIsSent() async throws {
        let folder = try temporaryFolder()
        try await withServerAndTransport { server, transport in
            await #expect {
                _ = try await Self.post(.file(path: folder.path), to: server, with: transport)
            } throws: { error in
                guard case TransportError.requestBodyFailed(let underlying) = error,
                    let fileError = underlying as? RequestBodyFileError
                else { return false }
                return fileError == .isDirectory(path: folder.path) && "\(error)" == "could not read the request body: \(folder.path) is a directory"
            }
            #expect(server.connections.accepted == 0)
            await #expect {
                _ = try await Self.post(.file(path: "/etc/hostname\u{0}.txt"), to: server, with: transport)
            } throws: { error in
                guard case TransportError.requestBodyFailed(let underlying) = error else { return false }
                return underlying as? RequestBodyFileError == .notFound(path: "/etc/hostname\u{0}.txt")
            }
        }
    }

    @Test func devZeroStreamsWithoutEndUntilCancelled() async throws {
        try await withServerAndTransport { server, transport in
            let cancellation = TransportCancellation()
            let request = TransportRequest(
                method: .POST,
                url: server.baseURL.appending("/upload"),
                body: .file(path: "/dev/zero"),
                bodyProgress: { sent in
                    if sent > 4 * 1024 * 1024 { cancellation.cancel() }
                },
                cancellation: cancellation
            )
            await #expect(throws: TransportError.self) {
                _ = try await transport.fetch(request)
            }
            #expect(cancellation.isCancelled, "/dev/zero is read to its end, which never comes, not sent empty")
        }
    }

    @Test func aFIFOWithNoWriterWaitsCancellably() async throws {
        let fifo = try FilledFIFO(contents: nil)
        defer { fifo.release() }
        try await withServerAndTransport { server, transport in
            let request = TransportRequest(method: .POST, url: server.baseURL.appending("/upload"), body: .file(path: fifo.url.path), cancellation: TransportCancellation())
            let upload = Task { try await transport.fetch(request) }
            try await waitUntil("the request reaches the server") { server.connections.open == 1 }
            let cancelled = ContinuousClock.now
            upload.cancel()
            let result = await upload.result
            guard case .failure(TransportError.cancelled) = result else {
                Issue.record("expected a cancellation, got \(result)")
                return
            }
            // A bound against a hang, not a speed claim: the whole suite shares two cores.
            #expect(ContinuousClock.now - cancelled < .seconds(30))
        }
    }

    /// POSTs `body` to `/post` and returns the echo.
    private static func post(
        _ body: TransportRequestBody,
        to server: LupineTestServer,
        with transport: NIOTransport
    ) async throws -> [String: Any] {
        let request = TransportRequest(method: .POST, url: server.baseURL.appending("/post"), body: body, cancellation: TransportCancellation())
        let (response, echo) = try await transport.fetch(request)
        #expect(response.status == .ok)
        return try #require(echo.jsonObject)
    }
}

/// A FIFO in a new temporary folder. With `contents`, a background thread opens it for writing
/// (which waits until a reader opens it), writes them and closes it.
struct FilledFIFO {
    let url: URL

    init(contents: [UInt8]?) throws {
        self.url = try temporaryFolder().appending(path: "pipe")
        guard mkfifo(self.url.path, 0o600) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
        guard let contents else { return }
        // A reader that gives up early would otherwise kill the test process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let path = self.url.path
        Thread.detachNewThread {
            let descriptor = open(path, O_WRONLY)
            guard descriptor >= 0 else { return }
            var written = 0
            while written < contents.count {
                let count = contents[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                written += count
            }
            close(descriptor)
        }
    }

    /// Lets a writer that still waits for a reader (the test failed before reading) go on and finish.
    func release() {
        let descriptor = open(self.url.path, O_RDONLY | O_NONBLOCK)
        if descriptor >= 0 { close(descriptor) }
    }
}
