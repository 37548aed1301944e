import Foundation
import Lupine
import LupineTestServer
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
            var received = try #require(try await iterator.next()).readableBytes

            // Wait until the transport has stopped pulling bytes (unchanged over 20 polls), then
            // check that it holds only a small window of the body.
            var last = -1
            var unchangedPolls = 0
            try await waitUntil("the transport stops reading") {
                let now = response.metrics.bodyBytesReceived
                unchangedPolls = now == last ? unchangedPolls + 1 : 0
                last = now
                return unchangedPolls >= 20
            }
            #expect(last < 8 * 1024 * 1024, "the transport buffered \(last) bytes for a paused consumer")

            while let chunk = try await iterator.next() {
                received += chunk.readableBytes
            }
            #expect(received == size)
            #expect(response.metrics.bodyBytesReceived == size)
        }
    }
}
