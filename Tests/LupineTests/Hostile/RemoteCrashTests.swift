import Foundation
import Lupine
import LupineTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// The three inputs with which a fuzzer outside this repository crashed the process through
/// Lupine's public API (issue 29), each fed back through that API: a response header, a response
/// body for the XML serializers and one for the property-list serializer.
@Suite struct RemoteCrashTests {
    /// `Wed, 22 Oct 2015 07:28:00` then the bytes D6 B8 (U+05B8, a combining mark) then `MT`:
    /// Foundation's `DateFormatter` trapped on it ("Incorrect range").
    static let lastModified = String(decoding: Array("Wed, 22 Oct 2015 07:28:00".utf8) + [0xD6, 0xB8] + Array("MT".utf8), as: UTF8.self)

    @Test func aLastModifiedThatTrappedDateFormatterIsNoValidator() throws {
        let url = try #require(URL(string: "http://127.0.0.1/f.bin"))
        let head = ResponseHead(status: .ok, headers: HTTPHeaders([("Last-Modified", Self.lastModified), ("Date", "Thu, 22 Oct 2015 07:28:01 GMT")]), url: url)
        #expect(ResumeData.validator(of: head) == nil)
    }

    /// The crash as it was reported: `lupine download` against a real server that sends that
    /// header. The download completes with the body in the file (before: SIGILL, exit 132, an
    /// empty file).
    @Test func aDownloadWhoseLastModifiedTrappedDateFormatterCompletes() async throws {
        let sandbox = try Sandbox()
        let body = String(repeating: "lupine ", count: 1_000)
        try await ScriptedServer.with { scripted in
            let running = try LupineCommandLineTests.start(["download", scripted.url.absoluteString + "/f.bin", "-o", "f.bin"], in: sandbox.work)
            try await running.whileRunning {
                let connection = try await scripted.nextConnection()
                _ = await connection.readRequestHead()
                var head = ByteBuffer(string: "HTTP/1.1 200 OK\r\nDate: Thu, 22 Oct 2015 07:28:01 GMT\r\nLast-Modified: ")
                head.writeBytes(Array("Wed, 22 Oct 2015 07:28:00".utf8) + [0xD6, 0xB8] + Array("MT".utf8))
                head.writeString("\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                try await connection.write(head)
                await connection.waitForClientClose()
            }
            let outcome = try await running.finish()
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
        #expect(try Data(contentsOf: sandbox.work.appending(path: "f.bin")) == Data(body.utf8))
        #expect(try sandbox.workContents() == ["f.bin"])
        #expect(sandbox.unchangedOutsideWork())
    }
}
