import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

/// A consumer that stops reading stops the socket reads; one that resumes gets every byte.
@Suite struct ResponseBackpressureTests {
    @Test func pausedConsumerHoldsBackTheSocketThenReceivesEverything() async throws {
        try await withServerAndTransport { server, transport in
            let size = 64 * 1024 * 1024
            let response = try await transport.execute(
                TransportRequest(url: server.baseURL.appending("/stream-bytes/\(size)"), cancellation: TransportCancellation())
            )
            var iterator = response.body.makeAsyncIterator()
            // Enough for the reads to have grown to their largest (256 KiB).
            var received = 0
            while received < 8 * 1024 * 1024, let chunk = try await iterator.next() {
                received += chunk.readableBytes
            }

            // Once the transport has stopped pulling bytes, the server has filled the socket's
            // buffers; taking what waits lets the transport read again from a full socket, where
            // every read is as large as it gets. After that it holds only a small window of the
            // body: two reads waiting for the consumer, and none past them.
            var waiting = try await Self.bytesOnceReadsStop(response) - received
            while waiting > 0, let chunk = try await iterator.next() {
                received += chunk.readableBytes
                waiting -= chunk.readableBytes
            }
            let buffered = try await Self.bytesOnceReadsStop(response) - received
            #expect(buffered <= 2 * 256 * 1024, "the transport buffered \(buffered) bytes for a paused consumer")

            while let chunk = try await iterator.next() {
                received += chunk.readableBytes
            }
            #expect(received == size)
            #expect(response.metrics.bodyBytesReceived == size)
        }
    }

    /// The body bytes the transport has received once it stops pulling more (unchanged over 20 polls).
    private static func bytesOnceReadsStop(_ response: TransportResponse) async throws -> Int {
        var last = -1
        var unchangedPolls = 0
        try await waitUntil("the transport stops reading") {
            let now = response.metrics.bodyBytesReceived
            unchangedPolls = now == last ? unchangedPolls + 1 : 0
            last = now
            return unchangedPolls >= 20
        }
        return last
    }
}
