#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Lupine
import LupineTestSupport
import NIOCore
import Testing

/// Hostile checks of uploads answered (2xx) while their body is still being sent: however the
/// request then ends (cancelled, its response dropped, a reset, a close, the transport shut
/// down, a retry on a stale connection), the file body is closed once it is over, and a cut
/// upload is never a success.
@Suite(.timeLimit(.minutes(5))) struct DuplexUploadHostileTests {
    /// Larger than the socket buffers take: the upload is still going on when it is answered.
    static let length = 16 << 20

    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        case cancelled, responseDropped, serverReset, serverClosed, transportShutDown
        var testDescription: String { self.rawValue }
    }

    @Test(arguments: Ending.allCases)
    func aFileBodyClosesWhenAnAnsweredUploadEnds(_ ending: Ending) async throws {
        let file = try Self.file(length: Self.length)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withScriptedServerAndTransport { server, transport in
            let cancellation = TransportCancellation()
            let request = TransportRequest(method: .POST, url: server.url.appending(path: "up"), body: .file(path: file.path), cancellation: cancellation)
            // Held until the answer only: the task's result would keep the response alive.
            var client: Task<TransportResponse, any Error>? = Task { try await transport.execute(request) }
            let connection = try await server.nextConnection()
            _ = await connection.readRequestHead()
            // The server takes no more of the body for now: the upload is parked mid-file.
            try await connection.channel.setOption(ChannelOptions.autoRead, value: false).get()
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
            var response: TransportResponse? = try await client?.value
            client = nil
            #expect(OpenDescriptors.count(on: file) > 0, "the answered upload still reads the file")
            switch ending {
            case .cancelled: cancellation.cancel()
            case .responseDropped: response = nil
            case .serverReset: try await connection.close(reset: true)
            case .serverClosed: try await connection.close()
            case .transportShutDown: await transport.shutdown()
            }
            if let response {
                await #expect(throws: (any Error).self, "a cut upload is no success") {
                    _ = try await response.body.collect(upTo: 100)
                }
            }
            #expect(await OpenDescriptors.waitUntil(file), "the file body was left open")
            if ending == .responseDropped {
                // The request was cancelled: the client closes the connection (it may have already).
                try? await connection.channel.setOption(ChannelOptions.autoRead, value: true).get()
                await connection.waitForClientClose()
            }
        }
    }

    /// An early answer other than 2xx stops the upload before `execute` returns, so the file is
    /// closed by then (give or take the upload task letting go of it).
    @Test(arguments: [401, 413, 302])
    func anEarlyRefusalClosesTheFile(status: Int) async throws {
        let file = try Self.file(length: Self.length)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withScriptedServerAndTransport { server, transport in
            let request = TransportRequest(method: .POST, url: server.url.appending(path: "up"), body: .file(path: file.path), cancellation: TransportCancellation())
            let client = Task { try await transport.fetch(request) }
            let connection = try await server.nextConnection()
            _ = await connection.readRequestHead()
            try await connection.channel.setOption(ChannelOptions.autoRead, value: false).get()
            try await connection.write("HTTP/1.1 \(status) No\r\nLocation: /x\r\nContent-Length: 2\r\n\r\nno")
            let (response, body) = try await client.value
            #expect(response.status.code == status && body == ByteBuffer(string: "no"))
            #expect(await OpenDescriptors.waitUntil(file), "the file body was left open")
        }
    }

    /// A PUT from a file on a pooled connection the server has closed is sent again, whole, on
    /// a new one (and answered early there); the file is closed once it is over.
    @Test func aRetriedFileUploadIsSentWholeAndClosed() async throws {
        let length = 2 << 20
        let file = try Self.file(length: length)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withScriptedServerAndTransport { server, transport in
            let first = Task { try await transport.get(server.url.appending(path: "first")) }
            let stale = try await server.nextConnection()
            _ = await stale.readRequestHead()
            try await stale.write("HTTP/1.1 204 No Content\r\n\r\n")
            _ = try await first.value
            let request = TransportRequest(method: .PUT, url: server.url.appending(path: "up"), body: .file(path: file.path), cancellation: TransportCancellation())
            let client = Task { try await transport.fetch(request) }
            #expect(await stale.readRequestHead()?.hasPrefix("PUT /up ") == true)
            try await stale.close()
            let fresh = try await server.nextConnection()
            #expect(await fresh.readRequestHead()?.hasPrefix("PUT /up ") == true)
            try await fresh.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            let received = await fresh.readBytes(length)
            #expect(received.count == length && received.allSatisfy { $0 == UInt8(ascii: "u") })
            let (response, body) = try await client.value
            #expect(response.status == .ok && body == ByteBuffer(string: "ok"))
            #expect(await OpenDescriptors.waitUntil(file), "the file body was left open")
        }
    }

    /// A file cut short while its upload goes on after the answer fails the response, rather
    /// than ending it as if the body had been whole.
    @Test func aFileTruncatedAfterTheAnswerFailsTheResponse() async throws {
        let file = try Self.file(length: Self.length)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withScriptedServerAndTransport { server, transport in
            let request = TransportRequest(method: .POST, url: server.url.appending(path: "up"), body: .file(path: file.path), cancellation: TransportCancellation())
            let client = Task { try await transport.execute(request) }
            let connection = try await server.nextConnection()
            _ = await connection.readRequestHead()
            try await connection.channel.setOption(ChannelOptions.autoRead, value: false).get()
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            let response = try await client.value
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: 1 << 20)
            try handle.close()
            try await connection.channel.setOption(ChannelOptions.autoRead, value: true).get()
            connection.channel.read()
            await #expect(throws: (any Error).self, "a cut upload is no success") {
                _ = try await response.body.collect(upTo: 100)
            }
            #expect(await OpenDescriptors.waitUntil(file), "the file body was left open")
        }
    }

    /// A cancel that races the answer, many times over: each request ends (failed, or answered
    /// and then failed), nothing hangs, and no descriptor of the file is left.
    @Test func cancelsRacingTheAnswerLeaveNoDescriptor() async throws {
        let file = try Self.file(length: 2 << 20)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withScriptedServerAndTransport { server, transport in
            for round in 0..<10 {
                let cancellation = TransportCancellation()
                let request = TransportRequest(method: .PUT, url: server.url.appending(path: "up"), body: .file(path: file.path), cancellation: cancellation)
                let client = Task { () -> Bool in
                    do {
                        let response = try await transport.execute(request)
                        _ = try await response.body.collect(upTo: 100)
                        return true
                    } catch {
                        return false
                    }
                }
                let connection = try await server.nextConnection()
                _ = await connection.readRequestHead()
                try await connection.channel.setOption(ChannelOptions.autoRead, value: false).get()
                async let answered: Void = connection.write("HTTP/1.1 \(round.isMultiple(of: 2) ? 200 : 401) X\r\nContent-Length: 2\r\n\r\nok")
                cancellation.cancel()
                _ = try? await answered
                #expect(await client.value == false || round % 2 == 1, "round \(round): a cancelled upload succeeded")
                try await connection.close()
            }
            #expect(await OpenDescriptors.waitUntil(file), "the file body was left open")
        }
    }

    /// A body held in memory, answered 2xx before the server has read it, is no more a success
    /// than a streamed one (`EarlyAcceptUploadTests`) when the server then reads a part and
    /// closes: the request ends with the upload, not once the body is queued.
    @Test func anAnsweredInMemoryUploadCutByTheServerIsNoSuccess() async throws {
        let length = Self.length
        try await withScriptedServerAndTransport { server, transport in
            var request = EarlyAcceptUploadTests.upload(to: server.url, length: length)
            request.body = .bytes(ByteBuffer(repeating: UInt8(ascii: "u"), count: length))
            let client = Task { try await transport.fetch(request) }
            let connection = try await server.nextConnection()
            _ = await connection.readRequestHead()
            try await connection.write("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
            _ = await connection.readBytes(1 << 20)
            try await connection.close()
            switch await client.result {
            case .success(let (response, _)):
                Issue.record("a cut upload succeeded: \(response.status), \(response.metrics.bodyBytesSent) of \(length) bytes sent")
            case .failure(let error):
                guard case TransportError.connectionClosedMidUpload(let sent, let declared) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(sent >= 1 << 20 && sent < length && declared == length)
            }
        }
    }

    /// A FIFO body answered early, whose writer keeps it open and writes no more: cancelling
    /// the request closes the reader the upload still holds.
    @Test func aFIFOBodyAnsweredEarlyIsClosedWhenCancelled() async throws {
        let fifo = try FilledFIFO(contents: nil)
        // Read and write, so the open never waits and the reader never sees an end.
        let writer = open(fifo.url.path, O_RDWR)
        #expect(writer >= 0)
        defer { close(writer) }
        #expect(write(writer, "hello", 5) == 5)
        try await withScriptedServerAndTransport { server, transport in
            let cancellation = TransportCancellation()
            let request = TransportRequest(method: .POST, url: server.url.appending(path: "up"), body: .file(path: fifo.url.path), cancellation: cancellation)
            var client: Task<TransportResponse, any Error>? = Task { try await transport.execute(request) }
            let connection = try await server.nextConnection()
            #expect(await connection.readRequestHead()?.contains("chunked") == true)
            #expect(await connection.readBytes(10) == Array("5\r\nhello\r\n".utf8))
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            let response = try await client?.value
            client = nil
            #expect(OpenDescriptors.count(on: fifo.url) == 2, "the upload still reads the FIFO")
            cancellation.cancel()
            await #expect(throws: (any Error).self, "a cut upload is no success") {
                _ = try await response?.body.collect(upTo: 100)
            }
            #expect(await OpenDescriptors.waitUntil(fifo.url, holdsAtMost: 1), "the FIFO body was left open")
        }
    }

    /// `length` bytes of `u` in a file of a new temporary folder.
    static func file(length: Int) throws -> URL {
        let file = try temporaryFolder().appending(path: "upload.bin")
        try Data(repeating: UInt8(ascii: "u"), count: length).write(to: file)
        return file
    }
}
