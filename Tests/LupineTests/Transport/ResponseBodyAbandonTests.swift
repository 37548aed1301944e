import Foundation
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

@testable import Lupine
@testable import LupineTransport

/// A consumer that stops iterating a body at any point (before its first part, after one, with
/// all its bytes taken but not its end, as the end arrives) leaves no trace on the connection:
/// a body cut off is cancelled and its connection closed, and the next request on the pool's
/// one connection gets its own answer, never the old body's bytes.
@Suite(.timeLimit(.minutes(10))) struct ResponseBodyAbandonTests {
    enum StopPoint: CaseIterable, Sendable {
        /// The response is dropped without its body being iterated.
        case beforeIterating
        /// After the first part.
        case afterOnePart
        /// Once every byte was taken, before the end is asked for.
        case afterTheLastByte
        /// After a part chosen at random around the middle and the end.
        case atRandom
    }

    static let bodies = ["/bytes/100", "/bytes/300000", "/stream-bytes/300000?chunk_size=4096", "/bytes/2097152", "/stream-bytes/2097152?chunk_size=65536"]

    @Test(arguments: StopPoint.allCases)
    func anAbandonedBodyNeverReachesTheNextRequest(stop: StopPoint) async throws {
        var random = SplitMix64(seed: 0xAB_A4D0)
        let configuration = TransportConfiguration(maximumConnectionsPerHost: 1, connectTimeout: .seconds(60))
        try await withServerAndTransport(transport: configuration) { server, transport in
            for round in 0..<20 {
                let path = Self.bodies[round % Self.bodies.count]
                let size = Int(path.split(separator: "/")[1].split(separator: "?")[0]) ?? 0
                let taken = try await Self.readThenAbandon(server.baseURL.appending(path), size: size, stop: stop, random: &random, transport: transport)
                // The next request on the one connection gets its own answer.
                let (next, body) = try await transport.get(server.baseURL.appending("/get?round=\(round)"))
                #expect(next.status == .ok)
                #expect((body.jsonObject?["args"] as? [String: Any])?["round"] as? String == "\(round)", "round \(round) after \(path): \(body.readableBytes) bytes")
                if taken < size / 2 && size > 1 << 20 {
                    // Cut off well before its end: that connection was closed, not reused.
                    #expect(!next.metrics.isReusedConnection, "round \(round): \(path) cut after \(taken) bytes")
                }
            }
            #expect(transport.connectionPoolStatistics().allSatisfy { $0.open == $0.idle })
            try await waitUntil("the server sees at most the one pooled connection") { server.connections.open <= 1 }
        }
    }

    /// Reads `url`'s body up to `stop`, checking each byte, then drops it; returns the bytes taken.
    private static func readThenAbandon(
        _ url: URL,
        size: Int,
        stop: StopPoint,
        random: inout SplitMix64,
        transport: NIOTransport
    ) async throws -> Int {
        let response = try await transport.execute(TransportRequest(url: url, cancellation: TransportCancellation()))
        let stopAfter: Int
        switch stop {
        case .beforeIterating: return 0
        case .afterOnePart: stopAfter = 1
        case .afterTheLastByte: stopAfter = .max
        case .atRandom: stopAfter = 1 + Int(random.next() % 40)
        }
        var iterator = response.body.makeAsyncIterator()
        var taken = 0
        var parts = 0
        while parts < stopAfter, taken < size, let part = try await iterator.next() {
            #expect(part.readableBytesView.elementsEqual(DeterministicBytes.bytes(in: taken..<(taken + part.readableBytes))))
            taken += part.readableBytes
            parts += 1
        }
        return taken
    }
}
