import Foundation
import LupineTestSupport
import NIOCore
import Testing

@testable import Lupine

/// Resumed downloads answered with nothing in ways ``DownloadEmptyAnswerTests`` does not try: a
/// `200` whose encoded body decodes to no byte, and a `206` that names the bytes it continues
/// with (`bytes 500-999/*`) and sends fewer. Neither may leave a file other than the one asked
/// for behind a success.
@Suite(.timeLimit(.minutes(5))) struct DownloadEmptyAnswerHostileTests {
    /// An empty gzip member: 20 bytes on the wire, no byte once decoded.
    static let emptyGzip: [UInt8] = [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0]

    @Test func anEncodedBodyThatDecodesToNothingKeepsTheBytes() async throws {
        var answer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nETag: \"new\"\r\nContent-Encoding: gzip\r\nContent-Length: \(Self.emptyGzip.count)\r\n\r\n")
        answer.writeBytes(Self.emptyGzip)
        let (error, kept) = try await Self.resume(answeredWith: answer)
        guard case .downloadFailed(.emptyAnswerToResume(200, keptBytes: 500)) = error else {
            Issue.record("expected emptyAnswerToResume, got \(String(describing: error))")
            return
        }
        #expect(kept == Data(repeating: UInt8(ascii: "o"), count: 500))
    }

    /// `bytes 500-999/*` promises 500 bytes from byte 500; fewer (none with `Content-Length: 0`,
    /// or a close-delimited body cut short) is not the whole file.
    @Test(arguments: [
        "HTTP/1.1 206 Partial Content\r\nETag: \"old\"\r\nContent-Range: bytes 500-999/*\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 206 Partial Content\r\nETag: \"old\"\r\nContent-Range: bytes 500-999/*\r\nConnection: close\r\n\r\n",
        "HTTP/1.1 206 Partial Content\r\nETag: \"old\"\r\nContent-Range: bytes 500-999/*\r\nConnection: close\r\n\r\nnnnnnnnnnn",
    ])
    func aRangeCutShortOfItsLastByteFails(answer: String) async throws {
        let (error, _) = try await Self.resume(answeredWith: ByteBuffer(string: answer))
        guard case .downloadFailed(.unexpectedContentRange) = error else {
            Issue.record("expected unexpectedContentRange, got \(String(describing: error))")
            return
        }
    }

    /// A `206` that continues at the right byte but announces `Int.max` bytes: the total is
    /// unknown rather than an overflow trap (the audit's finding), and the cut body fails.
    @Test func aRangeAnnouncingIntMaxBytesIsNoTrap() async throws {
        let answer =
            "HTTP/1.1 206 Partial Content\r\nETag: \"old\"\r\nContent-Range: bytes 500-999/1000\r\n"
            + "Content-Length: \(Int.max)\r\n\r\nnn"
        let (error, _) = try await Self.resume(answeredWith: ByteBuffer(string: answer))
        #expect(error != nil)
    }

    /// Resumes a download of 500 bytes of `o` that the server answers with `answer` (then
    /// closes); returns how it failed and what the partial file holds afterwards.
    static func resume(answeredWith answer: ByteBuffer) async throws -> (LupineError?, Data?) {
        let folder = try temporaryFolder()
        let partial = folder.appending(path: "old.part")
        try Data(repeating: UInt8(ascii: "o"), count: 500).write(to: partial)
        let error = try await ScriptedServer.with { server in
            let manager = SessionManager()
            defer { manager.invalidateSession(cancelingTasks: true) }
            manager.downloadDirectory = folder
            let url = server.url.appending(path: "file")
            let resumeData = ResumeData(url: url, entityTag: "\"old\"", bytesReceived: 500, temporaryFileURL: partial)
            let (completions, finished) = AsyncStream.makeStream(of: TaskCompletion.self)
            let task = try manager.downloadTask(with: Request(url: url), resumeData: resumeData) {
                finished.yield($0)
                finished.finish()
            }
            task.resume()
            let connection = try await server.nextConnection()
            let ranged = await connection.readRequestHead() ?? ""
            #expect(ranged.contains("Range: bytes=500-"), "\(ranged)")
            try await connection.write(answer)
            try await connection.close()
            var iterator = completions.makeAsyncIterator()
            return await iterator.next()?.error
        }
        return (error, try? Data(contentsOf: partial))
    }
}
