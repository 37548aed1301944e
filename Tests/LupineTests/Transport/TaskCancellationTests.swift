import Foundation
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

@testable import Lupine
@testable import LupineTransport

/// Cancelling the Swift task that runs a request, at each step: before it starts, while it
/// waits for the head, while its body is read, and around the head's arrival. The request ends
/// with ``TransportError/cancelled`` (or, when the answer won the race, whole), nothing cancelled
/// is sent, and the pool is left with its connection idle.
@Suite(.timeLimit(.minutes(5))) struct TaskCancellationTests {
    /// A task cancelled before it sends its request sends nothing, even when an idle pooled
    /// connection would let it start at once.
    @Test func aTaskCancelledBeforeItsRequestSendsNothing() async throws {
        try await withServerAndTransport { server, transport in
            _ = try await transport.get(server.baseURL.appending("/get"))
            let url = server.baseURL.appending("/counted/cancelled-early")
            let call = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await transport.execute(TransportRequest(method: .POST, url: url, cancellation: TransportCancellation()))
            }
            await expectTransportCancelled { try await call.value }
            // A request sent after it, on the same connection, is the first the server counts.
            let (_, body) = try await transport.fetch(TransportRequest(method: .POST, url: url, cancellation: TransportCancellation()))
            #expect(body.jsonObject?["count"] as? Int == 1)
            #expect(server.attempts(forKey: "counted-cancelled-early") == 1)
        }
    }

    @Test func cancellingTheTaskWhileItWaitsForTheHeadClosesTheConnection() async throws {
        try await withServerAndTransport { server, transport in
            let call = Task { try await transport.execute(TransportRequest(url: server.baseURL.appending("/delay/10"), cancellation: TransportCancellation())) }
            try await waitUntil("the request's connection is open") { server.connections.accepted == 1 }
            call.cancel()
            await expectTransportCancelled { try await call.value }
            // The server notices only once its ten seconds are up; the pool at once.
            try await waitUntil("the cancelled request's connection is closed") {
                transport.connectionPoolStatistics().allSatisfy { $0.open == 0 }
            }
        }
    }

    @Test func cancellingTheTaskWhileItReadsTheBodyEndsTheBodyWithAnError() async throws {
        try await withServerAndTransport { server, transport in
            let url = server.baseURL.appending("/drip?numbytes=100&duration=20")
            let response = try await transport.execute(TransportRequest(url: url, cancellation: TransportCancellation()))
            let reader = Task { try await response.body.collect(upTo: 1000) }
            reader.cancel()
            await expectTransportCancelled { try await reader.value }
            try await waitUntil("the cancelled body's connection is closed") { server.connections.open == 0 }
        }
    }

    /// Cancelled at varying moments around the head's arrival and the body's end: either
    /// outcome is fine, a hang or another error is not, and the next request gets its own answer.
    @Test func cancellingAroundTheHeadsArrivalLeavesTheConnectionClean() async throws {
        let configuration = TransportConfiguration(maximumConnectionsPerHost: 1, connectTimeout: .seconds(60))
        try await withServerAndTransport(transport: configuration) { server, transport in
            for round in 0..<200 {
                let url = server.baseURL.appending("/bytes/\([0, 10, 70000, 400000][round % 4])")
                let call = Task { try await transport.fetch(TransportRequest(url: url, cancellation: TransportCancellation())) }
                for _ in 0..<(round % 13) { await Task.yield() }
                call.cancel()
                switch await call.result {
                case .success(let (response, _)): #expect(response.status == .ok)
                case .failure(TransportError.cancelled): break
                case .failure(let error): Issue.record("round \(round): \(error)")
                }
                let (_, body) = try await transport.get(server.baseURL.appending("/get?round=\(round)"))
                #expect((body.jsonObject?["args"] as? [String: Any])?["round"] as? String == "\(round)")
            }
            #expect(transport.connectionPoolStatistics().allSatisfy { $0.open == $0.idle })
        }
    }
}
