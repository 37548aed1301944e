import Foundation
import Lupine
import LupineTestSupport
import NIOCore
import Testing

/// The response head reaches its caller however it arrives: alone, before its body; with a body
/// ended by the connection's close; after informational heads; without a body (HEAD, 204, 304);
/// while the request body is still being sent. Each server here is scripted byte by byte, and
/// a head kept back shows as a test that runs out of time instead of one that hangs.
@Suite(.timeLimit(.minutes(5))) struct ResponseHeadHandOverTests {
    static func request(_ server: ScriptedServer, method: HTTPMethod = .GET, body: TransportRequestBody? = nil) -> TransportRequest {
        TransportRequest(method: method, url: server.url.appending("/scripted"), body: body, cancellation: TransportCancellation())
    }

    @Test func aHeadSentAloneReachesTheCallerBeforeItsBody() async throws {
        try await withScriptedServerAndTransport { server, transport in
            async let response = transport.execute(Self.request(server))
            let connection = try await server.nextConnection()
            #expect(await connection.readRequestHead() != nil)
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
            // The body is sent only once the caller has the head.
            let head = try await response
            #expect(head.status == .ok)
            try await connection.write("hello")
            #expect(try await head.body.collect(upTo: 100) == ByteBuffer(string: "hello"))
        }
    }

    /// A body with neither a length nor chunks ends with the connection: its head is handed over
    /// before the close, and the close ends the body whole.
    @Test(arguments: ["HTTP/1.1", "HTTP/1.0"])
    func aBodyEndedByTheCloseComesWholeAfterItsHead(version: String) async throws {
        try await withScriptedServerAndTransport { server, transport in
            async let response = transport.execute(Self.request(server))
            let connection = try await server.nextConnection()
            #expect(await connection.readRequestHead() != nil)
            try await connection.write("\(version) 200 OK\r\nContent-Type: text/plain\r\n\r\nfirst ")
            let head = try await response
            try await connection.write("second")
            try await connection.close()
            #expect(try await head.body.collect(upTo: 100) == ByteBuffer(string: "first second"))
        }
    }

    /// Head, body and close in one write, and a head alone followed by a close.
    @Test(arguments: ["HTTP/1.1 200 OK\r\n\r\nall at once", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"])
    func aHeadThatTheCloseFollowsAtOnceIsHandedOver(bytes: String) async throws {
        try await withScriptedServerAndTransport { server, transport in
            async let response = transport.execute(Self.request(server))
            let connection = try await server.nextConnection()
            #expect(await connection.readRequestHead() != nil)
            try await connection.write(bytes)
            try await connection.close()
            let head = try await response
            let expected = bytes.components(separatedBy: "\r\n\r\n").last ?? ""
            #expect(try await head.body.collect(upTo: 100) == ByteBuffer(string: expected))
        }
    }

    /// Informational heads, alone in their writes or with the final head, are skipped; the
    /// final head is handed over with nothing after it.
    @Test(arguments: [false, true])
    func informationalHeadsAreSkippedAndTheFinalHeadHandedOver(together: Bool) async throws {
        try await withScriptedServerAndTransport { server, transport in
            async let response = transport.execute(Self.request(server))
            let connection = try await server.nextConnection()
            #expect(await connection.readRequestHead() != nil)
            let informational = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"
            let final = "HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\n"
            if together {
                try await connection.write(informational + final)
            } else {
                try await connection.write(informational)
                try await connection.write(final)
            }
            let head = try await response
            #expect(head.status == .accepted)
            try await connection.write("ok")
            #expect(try await head.body.collect(upTo: 100) == ByteBuffer(string: "ok"))
        }
    }

    /// A response without a body whatever its `Content-Length` says (to a HEAD, a 204, a 304)
    /// ends with its head; the connection then carries the next request and its own answer.
    @Test(arguments: [(HTTPMethod.HEAD, "200 OK"), (.GET, "204 No Content"), (.GET, "304 Not Modified")])
    func aBodilessResponseEndsWithItsHeadAndTheConnectionServesTheNext(method: HTTPMethod, status: String) async throws {
        try await withScriptedServerAndTransport { server, transport in
            async let first = transport.fetch(Self.request(server, method: method))
            let connection = try await server.nextConnection()
            #expect(await connection.readRequestHead() != nil)
            try await connection.write("HTTP/1.1 \(status)\r\nContent-Length: 1000\r\n\r\n")
            #expect(try await first.1.readableBytes == 0)

            async let second = transport.fetch(Self.request(server))
            #expect(await connection.readRequestHead() != nil)
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond")
            #expect(try await second.1 == ByteBuffer(string: "second"))
        }
    }

    /// A server that answers before the streamed request body is complete gives the caller its
    /// answer at once: the caller is not kept waiting for a body source the server no longer
    /// reads (here one that only goes on once the answer has come).
    @Test(arguments: [false, true])
    func anEarlyAnswerReachesTheCallerWhileTheBodySourceWaits(serverCloses: Bool) async throws {
        try await withScriptedServerAndTransport { server, transport in
            let (chunks, source) = AsyncStream.makeStream(of: ByteBuffer.self)
            source.yield(ByteBuffer(string: "the first part"))
            let body = TransportRequestBody.stream(chunks)
            async let response = transport.execute(Self.request(server, method: .POST, body: body))
            let connection = try await server.nextConnection()
            #expect(await connection.readRequestHead() != nil)
            _ = await connection.readBytes(1)
            try await connection.write("HTTP/1.1 413 Content Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo much")
            if serverCloses {
                try await connection.close()
            }
            let head = try await response
            source.finish()
            #expect(head.status.code == 413)
            #expect(try await head.body.collect(upTo: 100) == ByteBuffer(string: "too much"))
        }
    }
}

/// Runs `body` with a scripted server and a transport, shutting both down afterwards.
func withScriptedServerAndTransport<Result>(
    transport configuration: TransportConfiguration = .init(connectTimeout: .seconds(60)),
    _ body: (ScriptedServer, NIOTransport) async throws -> Result
) async throws -> Result {
    try await ScriptedServer.with { server in
        let transport = NIOTransport(configuration: configuration)
        return try await running {
            try await body(server, transport)
        } thenAlways: {
            await transport.shutdown()
        }
    }
}
