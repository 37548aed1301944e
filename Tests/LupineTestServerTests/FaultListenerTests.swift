import Foundation
import LupineTestSupport
import Testing

@Suite("Fault listener")
struct FaultListenerTests {
    @Test func closeMidBodySendsPartOfThePromisedBody() async throws {
        try await withTestServer { server in
            let client = try await server.connectToFaults()
            try await client.sendRequest("GET", "/close-mid-body")
            let head = try await client.readHead()
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "1000")
            #expect(head.connectionID != nil)
            #expect(try await client.readToEnd().count == 400)
        }
    }

    @Test func cutRedirectSendsPartOfItsBodyThenCloses() async throws {
        try await withTestServer { server in
            let client = try await server.connectToFaults()
            try await client.sendRequest("GET", "/cut-redirect?to=/get")
            let head = try await client.readHead()
            #expect(head.status == 302)
            #expect(head.header("Location") == "/get")
            #expect(head.header("Content-Length") == "1000")
            #expect(try await client.readToEnd().count == 400)
        }
    }

    /// The endless body goes on while the client reads: 8 MiB (far past what the socket buffers
    /// hold, so the pour is paused on writability whenever this reader lags) all arrive.
    @Test func endlessRedirectKeepsPouringForAReaderThatFallsBehind() async throws {
        try await withTestServer { server in
            let client = try await server.connectToFaults()
            try await client.sendRequest("GET", "/endless-redirect?to=/get")
            let head = try await client.readHead()
            #expect(head.status == 302)
            #expect(head.header("Transfer-Encoding") == "chunked")
            #expect(try await client.read(count: 8 << 20).count == 8 << 20)
        }
    }

    @Test func contentLengthTooLongSendsSixtyOfAHundredBytes() async throws {
        try await withTestServer { server in
            let client = try await server.connectToFaults()
            try await client.sendRequest("GET", "/content-length-too-long")
            let head = try await client.readHead()
            #expect(head.header("Content-Length") == "100")
            #expect(try await client.readToEnd().count == 60)
        }
    }

    @Test func malformedStatusLineAndOversizedHeaders() async throws {
        try await withTestServer { server in
            let malformed = try await server.connectToFaults()
            try await malformed.sendRequest("GET", "/malformed-status-line")
            let garbage = String(decoding: try await malformed.readToEnd(), as: UTF8.self)
            #expect(garbage.hasPrefix("HTTP/1.1 abc NOT-A-STATUS\r\n"))

            let oversized = try await server.connectToFaults()
            try await oversized.sendRequest("GET", "/oversized-headers")
            let head = try await oversized.readHead()
            #expect(head.headers.count > 200)
            #expect(head.headers.map { $0.name.utf8.count + $0.value.utf8.count }.reduce(0, +) > 190 * 1024)
        }
    }

    @Test func keepAliveOnceAnswersOnceThenClosesSilently() async throws {
        try await withTestServer { server in
            let client = try await server.connectToFaults()
            let first = try await client.request("GET", "/keep-alive-once")
            #expect(first.status == 200)
            #expect(first.text == #"{"request":1}"#)
            try await client.sendRequest("GET", "/keep-alive-once")
            #expect(await client.isClosedByServer())
        }
    }

    @Test func http10AndConnectionCloseEndTheConnection() async throws {
        try await withTestServer { server in
            let old = try await server.connectToFaults()
            let http10 = try await old.request("GET", "/http10")
            #expect(http10.statusLine == "HTTP/1.0 200 OK")
            #expect(http10.header("Content-Length") == nil)
            #expect(!http10.body.isEmpty)

            let closing = try await server.connectToFaults()
            let response = try await closing.request("GET", "/connection-close")
            #expect(response.header("Connection") == "close")
            #expect(response.body.count == Int(response.header("Content-Length") ?? ""))
            #expect(await closing.isClosedByServer())
        }
    }

    @Test func dripThenKeepAliveNotFound() async throws {
        try await withTestServer { server in
            let client = try await server.connectToFaults()
            let drip = try await client.request("GET", "/drip?bytes=5&interval_ms=5")
            #expect(drip.status == 200)
            #expect(drip.text == "*****")
            let missing = try await client.request("GET", "/unknown")
            #expect(missing.status == 404)
            #expect(missing.connectionID == drip.connectionID)
        }
    }
}
