import Foundation
import LupineTestSupport
import Testing

@testable import Lupine

/// A server that ignores `If-Range` and answers a resumed download with the rest of another
/// representation (a `206` whose `ETag` is not the one sent): appending it would make a file
/// that is neither version, so the download starts over and gets the whole new body.
@Suite(.timeLimit(.minutes(5))) struct DownloadIgnoredIfRangeTests {
    /// The `206` contradicts the resume data by its entity tag, or by its date when it has no tag.
    @Test(arguments: ["ETag: \"new\"", "Last-Modified: Tue, 02 Jan 2024 00:00:00 GMT"])
    func aRangeOfAnotherRepresentationIsNotAppended(validator: String) async throws {
        let folder = try temporaryFolder()
        try await ScriptedServer.with { server in
            let manager = SessionManager()
            defer { manager.invalidateSession(cancelingTasks: true) }
            manager.downloadDirectory = folder
            let partial = folder.appending(path: "old.part")
            try Data(repeating: UInt8(ascii: "o"), count: 500).write(to: partial)
            let url = server.url.appending(path: "file")
            let resumeData = ResumeData(
                url: url,
                entityTag: "\"old\"",
                lastModified: "Mon, 01 Jan 2024 00:00:00 GMT",
                bytesReceived: 500,
                temporaryFileURL: partial
            )
            let completion = manager.resumedDownload(of: url, from: resumeData)
            var connection = try await server.nextConnection()
            let ranged = await connection.readRequestHead() ?? ""
            #expect(ranged.contains("Range: bytes=500-") && ranged.contains("If-Range: \"old\""), "\(ranged)")
            try await connection.write(
                "HTTP/1.1 206 Partial Content\r\n\(validator)\r\nContent-Range: bytes 500-999/1000\r\nContent-Length: 500\r\n\r\n"
                    + String(repeating: "n", count: 500)
            )
            // The whole body is asked for again, on this connection or a new one.
            var whole = await connection.readRequestHead()
            if whole == nil {
                connection = try await server.nextConnection()
                whole = await connection.readRequestHead()
            }
            #expect(whole?.contains("Range:") == false, "\(whole ?? "no request")")
            try await connection.write("HTTP/1.1 200 OK\r\nETag: \"new\"\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "w", count: 1000))
            let done = await completion.value
            #expect(done.error == nil && done.response?.statusCode == 200, "\(String(describing: done.error))")
            let file = try #require(done.fileURL)
            #expect(try Data(contentsOf: file) == Data(repeating: UInt8(ascii: "w"), count: 1000))
        }
    }
}
