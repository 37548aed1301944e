import Foundation
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

@testable import Lupine
@testable import LupineTransport

/// Over TLS, where the handshake handler hands decrypted bytes on only once a socket read is
/// done: a slow consumer still gets every byte with a bounded window, and a body abandoned at
/// any point still frees the pool's one connection for the next request's own answer.
@Suite(.timeLimit(.minutes(10))) struct TLSResponseFeedTests {
    static let trusting = ServerTrustEvaluator { _ in .trusted }

    @Test func aSlowConsumerOverTLSGetsEveryByteWithABoundedWindow() async throws {
        let configuration = TransportConfiguration(connectTimeout: .seconds(60), serverTrustEvaluator: Self.trusting)
        try await withServerAndTransport(server: .init(tls: true), transport: configuration) { server, transport in
            let size = 32 << 20
            let url = server.baseURL.appending("/stream-bytes/\(size)?chunk_size=16384")
            let response = try await transport.execute(TransportRequest(url: url, cancellation: TransportCancellation()))
            var reading = WindowWatch(response: response)
            for try await part in response.body {
                #expect(part.readableBytesView.elementsEqual(DeterministicBytes.bytes(in: reading.received..<(reading.received + part.readableBytes))))
                for _ in 0..<(reading.parts % 5) { await Task.yield() }
                reading.consumed(part)
            }
            #expect(reading.received == size)
            #expect(reading.widest <= SlowConsumerBackpressureTests.window, "the transport held \(reading.widest) bytes ahead of its consumer")
        }
    }

    @Test func anAbandonedBodyOverTLSNeverReachesTheNextRequest() async throws {
        let configuration = TransportConfiguration(maximumConnectionsPerHost: 1, connectTimeout: .seconds(60), serverTrustEvaluator: Self.trusting)
        try await withServerAndTransport(server: .init(tls: true), transport: configuration) { server, transport in
            for round in 0..<30 {
                let url = server.baseURL.appending("/bytes/\([100, 300_000, 8 << 20][round % 3])")
                try await Self.abandon(url, afterOnePart: round % 2 == 1, on: transport)
                let (_, body) = try await transport.get(server.baseURL.appending("/get?round=\(round)"))
                #expect((body.jsonObject?["args"] as? [String: Any])?["round"] as? String == "\(round)")
            }
            #expect(transport.connectionPoolStatistics().allSatisfy { $0.open == $0.idle })
        }
    }

    /// Requests `url` and drops its response, un-iterated or after one part, on return.
    private static func abandon(_ url: URL, afterOnePart: Bool, on transport: NIOTransport) async throws {
        let response = try await transport.execute(TransportRequest(url: url, cancellation: TransportCancellation()))
        guard afterOnePart else { return }
        var iterator = response.body.makeAsyncIterator()
        _ = try await iterator.next()
    }
}
