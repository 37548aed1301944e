import Foundation
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

@testable import Lupine
@testable import LupineTransport

/// Consumers slower than the server, steadily or by fits, or late to start: every byte arrives,
/// in order, and the transport never holds more than a small window of the body ahead of them.
/// A demand lost between the consumer and the event loop would show as a test that runs out of
/// time; one that reads past a full buffer, as a window that grows with the body.
@Suite(.timeLimit(.minutes(10))) struct SlowConsumerBackpressureTests {
    /// Two reads waiting for the consumer, one more the feed may let through, and the read being
    /// parsed (reads are at most 256 KiB).
    static let window = 4 * 256 * 1024

    /// A consumer that writes every part to a real file and flushes it to the disk every few
    /// parts is slower than a server on the loopback.
    @Test func aConsumerWritingToADiskKeepsTheWindowSmallAndGetsEveryByte() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "body")
        #expect(FileManager.default.createFile(atPath: path.path, contents: nil))
        try await withServerAndTransport { server, transport in
            let size = 128 << 20
            let url = server.baseURL.appending("/stream-bytes/\(size)?chunk_size=65536")
            let response = try await transport.execute(TransportRequest(url: url, cancellation: TransportCancellation()))
            let file = try FileHandle(forWritingTo: path)
            defer { try? file.close() }
            var reading = WindowWatch(response: response)
            var parts = 0
            for try await part in response.body {
                try file.write(contentsOf: Data(part.readableBytesView))
                parts += 1
                if parts % 16 == 0 { try file.synchronize() }
                reading.consumed(part)
            }
            #expect(reading.received == size)
            #expect(reading.widest <= Self.window, "the transport held \(reading.widest) bytes ahead of its consumer")
            #expect(try Data(contentsOf: path).elementsEqual(DeterministicBytes.bytes(in: 0..<size)))
        }
    }

    /// A consumer that starts iterating before the body's first byte has come, then takes its
    /// time: the demand it makes while waiting for the first part belongs to no full buffer.
    @Test func aConsumerWaitingBeforeTheFirstPartThenSlowGetsEveryByte() async throws {
        try await withScriptedServerAndTransport { server, transport in
            let size = 32 << 20
            let request = TransportRequest(url: server.url.appending("/late"), cancellation: TransportCancellation())
            async let response = transport.execute(request)
            let connection = try await server.nextConnection()
            #expect(await connection.readRequestHead() != nil)
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n")
            let head = try await response
            let consumer = Task {
                var reading = WindowWatch(response: head)
                for try await part in head.body {
                    for _ in 0..<(reading.parts % 7) { await Task.yield() }
                    reading.consumed(part)
                }
                return reading
            }
            // The consumer has had the head all along; the body starts now, in 1 MiB writes.
            for start in stride(from: 0, to: size, by: 1 << 20) {
                try await connection.write(ByteBuffer(bytes: DeterministicBytes.bytes(in: start..<(start + (1 << 20)))))
            }
            let reading = try await consumer.value
            #expect(reading.received == size)
            #expect(reading.widest <= Self.window, "the transport held \(reading.widest) bytes ahead of its consumer")
        }
    }

    /// Many downloads in a row on one connection, each consumer alternating between taking parts
    /// at once and letting other tasks run first (seeded, so a failure replays): the races
    /// between a full buffer and the demand that empties it are met over and over.
    @Test func consumersAlternatingFastAndSlowNeverStall() async throws {
        var random = SplitMix64(seed: 0x5EED_FEED)
        try await withServerAndTransport(transport: .init(maximumConnectionsPerHost: 1, connectTimeout: .seconds(60))) { server, transport in
            for round in 0..<200 {
                let size = 1 << 20
                let chunk = [512, 4096, 16384, 65536][round % 4]
                let url = server.baseURL.appending("/stream-bytes/\(size)?chunk_size=\(chunk)")
                let response = try await transport.execute(TransportRequest(url: url, cancellation: TransportCancellation()))
                let pauses = (0..<64).map { _ in Int(random.next() % 4) }
                var reading = WindowWatch(response: response)
                for try await part in response.body {
                    for _ in 0..<pauses[reading.parts % pauses.count] { await Task.yield() }
                    reading.consumed(part)
                }
                #expect(reading.received == size, "round \(round)")
                #expect(reading.widest <= Self.window, "round \(round): \(reading.widest) bytes ahead of the consumer")
            }
            #expect(transport.connectionPoolStatistics().allSatisfy { $0.open == $0.idle })
        }
    }
}

/// What a consumer took of a response body, and how far the transport was ahead of it.
struct WindowWatch {
    let response: TransportResponse
    private(set) var received = 0
    private(set) var parts = 0
    /// The most body bytes the transport had received and the consumer not yet taken.
    private(set) var widest = 0

    init(response: TransportResponse) {
        self.response = response
    }

    mutating func consumed(_ part: ByteBuffer) {
        self.widest = max(self.widest, self.response.metrics.bodyBytesReceived - self.received)
        self.received += part.readableBytes
        self.parts += 1
    }
}
