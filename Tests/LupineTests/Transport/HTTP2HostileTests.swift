import Foundation
import Lupine
import NIOCore
import Testing

/// A hand-scripted HTTP/2 server sending what no HTTP/2 server should: each case ends in a typed
/// error at once, never a trap in NIOHTTP2's codec nor a wait for the deadline (found by the
/// hostile pass: an empty or negative `:status` trapped it; an informational head that ended the
/// stream, or an endless run of them, held the request until its deadline).
@Suite(.timeLimit(.minutes(5))) struct HTTP2HostileTests {
    /// One frame: its type, flags, stream and payload.
    struct Frame {
        let type: UInt8
        let flags: UInt8
        let stream: UInt32
        let payload: [UInt8]

        var bytes: ByteBuffer {
            var buffer = ByteBuffer()
            buffer.writeBytes([UInt8(payload.count >> 16), UInt8((payload.count >> 8) & 0xff), UInt8(payload.count & 0xff)])
            buffer.writeInteger(self.type)
            buffer.writeInteger(self.flags)
            buffer.writeInteger(self.stream & 0x7fff_ffff)
            buffer.writeBytes(self.payload)
            return buffer
        }

        static func read(from connection: ScriptedConnection) async -> Frame? {
            let head = await connection.readBytes(9)
            guard head.count == 9 else { return nil }
            let length = Int(head[0]) << 16 | Int(head[1]) << 8 | Int(head[2])
            let stream = UInt32(head[5] & 0x7f) << 24 | UInt32(head[6]) << 16 | UInt32(head[7]) << 8 | UInt32(head[8])
            return Frame(type: head[3], flags: head[4], stream: stream, payload: await connection.readBytes(length))
        }
    }

    /// Answers the client's preface and first request with `frames` (each written as given).
    private static func answer(with frames: [Frame], on connection: ScriptedConnection) async throws {
        _ = await connection.readBytes(24)
        _ = await Frame.read(from: connection)
        // Our SETTINGS (none), and the ACK of the client's.
        var settings = Frame(type: 4, flags: 0, stream: 0, payload: []).bytes
        var ack = Frame(type: 4, flags: 1, stream: 0, payload: []).bytes
        settings.writeBuffer(&ack)
        try await connection.write(settings)
        while let frame = await Frame.read(from: connection) {
            if frame.type == 1, frame.stream == 1 {
                for frame in frames {
                    try await connection.write(frame.bytes)
                }
                return
            }
        }
    }

    /// `:status` (static table entry 8) as a literal without indexing, with `value`.
    static func status(_ value: String) -> [UInt8] {
        [0x08, UInt8(value.utf8.count)] + Array(value.utf8)
    }

    @Test(arguments: ["", "-20", "20", "2000", "abc", "2 0", "099", "600", "+20"])
    func aStatusThatIsNotAStatusIsATypedError(_ value: String) async throws {
        try await ScriptedServer.with { server in
            let transport = NIOTransport(configuration: TransportConfiguration(connectTimeout: .seconds(60), httpVersion: .http2PriorKnowledge))
            // END_STREAM and END_HEADERS.
            let head = Frame(type: 1, flags: 0x5, stream: 1, payload: Self.status(value))
            async let answered: Void = Self.answer(with: [head], on: try await server.nextConnection())
            await #expect {
                _ = try await transport.execute(TransportRequest(url: server.url.appending(path: "get"), cancellation: TransportCancellation()))
            } throws: { error in
                // Whitespace is refused by NIOHTTP2's own validation, which resets the stream.
                guard case TransportError.invalidResponse(let reason) = error else { return false }
                return reason.contains(":status") || reason.contains("PROTOCOL_ERROR")
            }
            try await answered
            await transport.shutdown()
        }
    }

    /// A GOAWAY with an error code means the server is closing the connection: a stream it named
    /// as processed fails at once with a typed error, not after the read timeout, even when the
    /// server leaves the socket open.
    @Test func aGOAWAYWithAnErrorMidBodyFailsTheStreamAtOnce() async throws {
        try await ScriptedServer.with { server in
            let configuration = TransportConfiguration(connectTimeout: .seconds(60), readTimeout: .seconds(3600), httpVersion: .http2PriorKnowledge)
            let transport = NIOTransport(configuration: configuration)
            // `:status 200` (static entry 8) and a length, then part of the body, then GOAWAY
            // naming stream 1 as processed, with INTERNAL_ERROR.
            let head = Frame(type: 1, flags: 0x4, stream: 1, payload: [0x88, 0x0f, 0x0d, 0x02] + Array("10".utf8))
            let part = Frame(type: 0, flags: 0, stream: 1, payload: Array("hello".utf8))
            let goAway = Frame(type: 7, flags: 0, stream: 0, payload: [0, 0, 0, 1, 0, 0, 0, 2])
            async let answered: Void = Self.answer(with: [head, part, goAway], on: try await server.nextConnection())
            let response = try await transport.execute(TransportRequest(url: server.url.appending(path: "get"), cancellation: TransportCancellation()))
            #expect(response.status == .ok)
            await #expect {
                _ = try await response.body.collect(upTo: 1 << 20)
            } throws: { error in
                guard case TransportError.connectionClosedMidBody(5, 10) = error else { return false }
                return true
            }
            try await answered
            await transport.shutdown()
        }
    }

    /// A malformed response on one stream (an upper-case field name) resets that stream alone:
    /// the other stream on the connection completes (the hostile pass found the whole
    /// connection closed, failing every stream on it).
    @Test func aMalformedStreamLeavesItsConnectionsOtherStreamsAlone() async throws {
        try await ScriptedServer.with { server in
            let configuration = TransportConfiguration(
                maximumConnectionsPerHost: 1,
                connectTimeout: .seconds(60),
                readTimeout: .seconds(3600),
                httpVersion: .http2PriorKnowledge
            )
            let transport = NIOTransport(configuration: configuration)
            let first = Task { try await transport.get(server.url.appending(path: "a")) }
            let connection = try await server.nextConnection()
            _ = await connection.readBytes(24)
            _ = await Frame.read(from: connection)
            var settings = Frame(type: 4, flags: 0, stream: 0, payload: []).bytes
            var ack = Frame(type: 4, flags: 1, stream: 0, payload: []).bytes
            settings.writeBuffer(&ack)
            try await connection.write(settings)
            var streams: [UInt32] = []
            var second: Task<(TransportResponse, ByteBuffer), any Error>?
            while streams.count < 2, let frame = await Frame.read(from: connection) {
                guard frame.type == 1 else { continue }
                streams.append(frame.stream)
                if second == nil {
                    second = Task { try await transport.get(server.url.appending(path: "b")) }
                }
            }
            try #require(streams.count == 2)
            // Stream one: `:status 200` and `X-Upper: a`, a name HTTP/2 forbids; stream two: `:status 200`.
            let malformed = Frame(type: 1, flags: 0x5, stream: streams[0], payload: [0x88, 0x00, 0x07] + Array("X-Upper".utf8) + [0x01, 0x61])
            let fine = Frame(type: 1, flags: 0x5, stream: streams[1], payload: [0x88])
            var frames = malformed.bytes
            var rest = fine.bytes
            frames.writeBuffer(&rest)
            try await connection.write(frames)
            await #expect(throws: TransportError.self) { _ = try await first.value }
            let (response, _) = try #require(try await second?.value)
            #expect(response.status == .ok)
            await transport.shutdown()
        }
    }

    @Test(arguments: [1, 11])
    func informationalHeadsThatEndTheStreamOrNeverEndAreTypedErrors(_ count: Int) async throws {
        try await ScriptedServer.with { server in
            let configuration = TransportConfiguration(connectTimeout: .seconds(60), readTimeout: .seconds(3600), httpVersion: .http2PriorKnowledge)
            let transport = NIOTransport(configuration: configuration)
            // `:status 103`; the last one ends the stream when there is one.
            let heads = (0..<count).map { _ in
                Frame(type: 1, flags: count == 1 ? 0x5 : 0x4, stream: 1, payload: Self.status("103"))
            }
            async let answered: Void = Self.answer(with: heads, on: try await server.nextConnection())
            await #expect {
                _ = try await transport.execute(TransportRequest(url: server.url.appending(path: "get"), cancellation: TransportCancellation()))
            } throws: { error in
                guard case TransportError.invalidResponse(let reason) = error else { return false }
                return reason.contains("informational")
            }
            try await answered
            await transport.shutdown()
        }
    }
}
