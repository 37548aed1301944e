import Foundation
import LupineTestSupport
import Testing

@testable import Lupine

/// A resumed download answered with a success that has no byte (a `204`, an empty `200`, a
/// close-delimited `200` closed at once): the bytes already received are not replaced by
/// nothing. The download fails with a reason of its own and the partial file is left whole.
@Suite(.timeLimit(.minutes(5))) struct DownloadEmptyAnswerTests {
    @Test(arguments: [
        "HTTP/1.1 204 No Content\r\n\r\n",
        "HTTP/1.1 200 OK\r\nETag: \"new\"\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nETag: \"new\"\r\nConnection: close\r\n\r\n",
    ])
    func anEmptyAnswerKeepsTheBytesItWouldReplace(answer: String) async throws {
        let folder = try temporaryFolder()
        let partial = folder.appending(path: "old.part")
        try Data(repeating: UInt8(ascii: "o"), count: 500).write(to: partial)
        try await ScriptedServer.with { server in
            let manager = SessionManager()
            defer { manager.invalidateSession(cancelingTasks: true) }
            manager.downloadDirectory = folder
            let url = server.url.appending(path: "file")
            let resumeData = ResumeData(url: url, entityTag: "\"old\"", bytesReceived: 500, temporaryFileURL: partial)
            let completion = manager.resumedDownload(of: url, from: resumeData)
            let connection = try await server.nextConnection()
            let ranged = await connection.readRequestHead() ?? ""
            #expect(ranged.contains("Range: bytes=500-"), "\(ranged)")
            try await connection.write(answer)
            if answer.contains("close") {
                try await connection.close()
            }
            let done = await completion.value
            guard case .downloadFailed(.emptyAnswerToResume(let status, keptBytes: 500)) = done.error else {
                Issue.record("expected emptyAnswerToResume, got \(String(describing: done.error))")
                return
            }
            #expect(answer.hasPrefix("HTTP/1.1 \(status) "))
        }
        #expect(try Data(contentsOf: partial) == Data(repeating: UInt8(ascii: "o"), count: 500))
    }
}
