import Foundation
import LupineTestSupport
import NIOCore
import NIOHTTP1
import Testing

@testable import Lupine
@testable import LupineTransport

/// A server that answers 2xx before it has read the whole request body, then reads on (as curl
/// and AsyncHTTPClient allow): the body is still sent to its end, the request ends when both
/// have, and a server that then stops taking the body fails the request rather than leaving a
/// cut upload behind a success. The answer is the caller's at once, so a full-duplex server works.
@Suite(.timeLimit(.minutes(5))) struct EarlyAcceptUploadTests {
    typealias Machine = HTTP1RequestStateMachine

    @Test func theUploadGoesOnToItsEndAndTheConnectionIsKept() async throws {
        let length = 4 << 20
        try await withScriptedServerAndTransport { server, transport in
            let client = Task { try await transport.fetch(Self.upload(to: server.url, length: length)) }
            let connection = try await server.nextConnection()
            _ = await connection.readRequestHead()
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            let received = await connection.readBytes(length)
            #expect(received.count == length && received.allSatisfy { $0 == UInt8(ascii: "u") })
            let (response, body) = try await client.value
            #expect(response.status == .ok && body == ByteBuffer(string: "ok"))
            // The request's framing is whole: the next request goes on the same connection.
            let next = Task { try await transport.get(server.url.appending(path: "next")) }
            #expect(await connection.readRequestHead()?.hasPrefix("GET /next ") == true)
            try await connection.write("HTTP/1.1 204 No Content\r\n\r\n")
            #expect(try await next.value.0.status == .noContent)
        }
    }

    @Test func aServerThatAnswersThenStopsReadingFailsTheRequest() async throws {
        try await withScriptedServerAndTransport { server, transport in
            let client = Task { try await transport.fetch(Self.upload(to: server.url, length: 16 << 20)) }
            let connection = try await server.nextConnection()
            _ = await connection.readRequestHead()
            try await connection.write("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
            _ = await connection.readBytes(1 << 20)
            try await connection.close()
            await #expect {
                _ = try await client.value
            } throws: { error in
                guard case TransportError.connectionClosedMidUpload(let sent, let declared) = error else { return false }
                return sent >= 1 << 20 && sent < 16 << 20 && declared == 16 << 20
            }
        }
    }

    /// A full-duplex server (an echo: it sends its answer before it reads the body, and reads
    /// only once the answer is read) gets the whole body, as with curl: the head is handed over at
    /// once, so the caller reads the answer while the body is still being sent. A file body stays
    /// open for the upload after `execute` has returned, and is closed once the request ends.
    @Test(arguments: [false, true])
    func aFullDuplexServerGetsTheWholeBody(fromFile: Bool) async throws {
        let length = 32 << 20
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "upload.bin")
        try Data(repeating: UInt8(ascii: "u"), count: length).write(to: file)
        let request =
            fromFile
            ? TransportRequest(method: .POST, url: URL(string: "http://127.0.0.1/upload")!, body: .file(path: file.path), cancellation: TransportCancellation())
            : Self.upload(to: URL(string: "http://127.0.0.1")!, length: length)
        try await withScriptedServerAndTransport { server, transport in
            var sent = request
            sent.url = server.url.appending(path: "upload")
            let client = Task { try await transport.fetch(sent) }
            let connection = try await server.nextConnection()
            _ = await connection.readRequestHead()
            #expect(!fromFile || OpenDescriptors.count(on: file) > 0)
            // It stops reading until its whole answer is written, which needs the client to read it.
            try await connection.channel.setOption(ChannelOptions.autoRead, value: false).get()
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n")
            try await connection.write(ByteBuffer(repeating: UInt8(ascii: "e"), count: length))
            try await connection.channel.setOption(ChannelOptions.autoRead, value: true).get()
            connection.channel.read()
            let received = await connection.readBytes(length)
            #expect(received.count == length && received.allSatisfy { $0 == UInt8(ascii: "u") })
            let (response, body) = try await client.value
            #expect(response.status == .ok && body.readableBytes == length)
        }
        if fromFile {
            #expect(await OpenDescriptors.waitUntil(file), "the file body was left open")
        }
    }

    @Test func theMachineEndsTheRequestWithTheUploadAndTimesOutAStalledOne() {
        var machine = Machine()
        let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/")
        _ = machine.start(0, head: head, body: .streamed(length: 100), readTimeout: .seconds(10), now: t0)
        _ = machine.bodyPartToWrite(0, part: ByteBuffer(repeating: 0, count: 10))
        #expect(machine.bodyPartWritten(channelIsWritable: false).name == "parkBodyProducer")
        guard case .forwardHead(_, let stopUpload) = machine.receivedHead(HTTPResponseHead(version: .http1_1, status: .ok), now: t0) else {
            Issue.record("the head was not forwarded")
            return
        }
        #expect(!stopUpload, "a 2xx answer lets the upload go on")
        // The caller reads the response while the body is sent: a server that takes no more of
        // the body and sends nothing is a stall; held reads (a caller slow to read) are not.
        machine.consumerBufferFull(0)
        #expect(machine.readTimerFired(0, now: t0 + .seconds(11)).name == "scheduleReadTimer")
        _ = machine.consumerDemand(0)
        #expect(machine.readTimerFired(0, now: t0 + .seconds(22)).failure == TransportError.uploadStalledAfterAnswer(timeout: .seconds(10)).description)

        var whole = Machine()
        _ = whole.start(0, head: head, body: .streamed(length: 3), readTimeout: nil, now: t0)
        _ = whole.receivedHead(HTTPResponseHead(version: .http1_1, status: .accepted, headers: ["Content-Length": "0"]), now: t0)
        #expect(whole.receivedEnd().name == "none", "the request ends with its upload")
        #expect(whole.bodyPartToWrite(0, part: ByteBuffer(string: "abc")).name == "writeBodyPart")
        #expect(whole.bodyEnded(0).name == "writeRequestEnd")
        guard case .succeedRequest(let reusable, _) = whole.requestEndWritten() else {
            Issue.record("the request did not end with its upload")
            return
        }
        #expect(reusable)
    }

    /// A POST of `length` bytes of `u`, streamed in 64 KiB parts.
    static func upload(to url: URL, length: Int) -> TransportRequest {
        let part = 64 << 10
        let parts = AsyncStream<ByteBuffer> { continuation in
            for offset in stride(from: 0, to: length, by: part) {
                continuation.yield(ByteBuffer(repeating: UInt8(ascii: "u"), count: min(part, length - offset)))
            }
            continuation.finish()
        }
        return TransportRequest(method: .POST, url: url.appending(path: "upload"), body: .stream(parts, length: length), cancellation: TransportCancellation())
    }
}
