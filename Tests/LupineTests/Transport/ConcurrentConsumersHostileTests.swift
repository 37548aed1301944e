import Foundation
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

@testable import Lupine
@testable import LupineTransport

/// Many requests at once on few connections, each consumer doing something else with its body
/// (reading it all, dropping it, stopping after a part, cancelling its task or its request):
/// every request ends, a read body is its own, and the pool ends with no connection in use.
@Suite(.timeLimit(.minutes(15))) struct ConcurrentConsumersHostileTests {
    enum Behaviour: CaseIterable {
        case readAll, dropBeforeIterating, stopAfterOnePart, cancelTask, cancelRequest
    }

    static let tasks = 64
    static let requestsPerTask = 32
    static let sizes = [0, 1, 5000, 70000, 300_000]

    @Test func everyRequestEndsAndThePoolEndsIdle() async throws {
        let configuration = TransportConfiguration(maximumConnectionsPerHost: 4, connectTimeout: .seconds(60))
        try await withServerAndTransport(transport: configuration) { server, transport in
            let ended = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<Self.tasks {
                    group.addTask {
                        var random = SplitMix64(seed: UInt64(index) &* 0x9E37_79B9)
                        var ended = 0
                        for _ in 0..<Self.requestsPerTask {
                            let size = Self.sizes[Int(random.next() % UInt64(Self.sizes.count))]
                            let behaviour = Behaviour.allCases[Int(random.next() % UInt64(Behaviour.allCases.count))]
                            try await Self.run(behaviour, size: size, base: server.baseURL, transport: transport)
                            ended += 1
                        }
                        return ended
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(ended == Self.tasks * Self.requestsPerTask)
            // A dropped body's cancel reaches its connection's event loop after the request ended.
            try await waitUntil("every connection of the pool is idle") {
                transport.connectionPoolStatistics().allSatisfy { $0.open == $0.idle && $0.open <= 4 }
            }
            let (_, body) = try await transport.get(server.baseURL.appending("/get?after=all"))
            #expect((body.jsonObject?["args"] as? [String: Any])?["after"] as? String == "all")
        }
    }

    /// One request of `size` body bytes, its body treated as `behaviour` says; throws only for
    /// an outcome that behaviour cannot have.
    private static func run(_ behaviour: Behaviour, size: Int, base: URL, transport: NIOTransport) async throws {
        let cancellation = TransportCancellation()
        let request = TransportRequest(url: base.appending("/bytes/\(size)"), cancellation: cancellation)
        switch behaviour {
        case .readAll:
            let (_, body) = try await transport.fetch(request)
            #expect(body.readableBytesView.elementsEqual(DeterministicBytes.bytes(in: 0..<size)), "a body of \(body.readableBytes) bytes for \(size)")
        case .dropBeforeIterating:
            _ = try await transport.execute(request)
        case .stopAfterOnePart:
            var iterator = try await transport.execute(request).body.makeAsyncIterator()
            _ = try await iterator.next()
        case .cancelTask:
            let call = Task { try await transport.fetch(request) }
            await Task.yield()
            call.cancel()
            try Self.expectWholeOrCancelled(await call.result, size: size)
        case .cancelRequest:
            let call = Task { try await transport.fetch(request) }
            await Task.yield()
            cancellation.cancel()
            try Self.expectWholeOrCancelled(await call.result, size: size)
        }
    }

    private static func expectWholeOrCancelled(_ result: Result<(TransportResponse, ByteBuffer), any Error>, size: Int) throws {
        switch result {
        case .success(let (_, body)):
            #expect(body.readableBytes == size)
        case .failure(TransportError.cancelled):
            break
        case .failure(let error):
            throw error
        }
    }
}
