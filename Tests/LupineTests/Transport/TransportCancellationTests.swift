import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

/// ``TransportCancellation`` cancels a request at each step without cancelling the Swift task
/// that runs it: waiting for a pooled connection, waiting for the head, reading the body.
@Suite struct TransportCancellationTests {
    @Test func aCancelledHandleFailsTheRequestBeforeAnythingIsSent() async throws {
        try await withServerAndTransport { server, transport in
            let cancellation = TransportCancellation()
            cancellation.cancel()
            await expectTransportCancelled { try await transport.execute(TransportRequest(url: server.baseURL.appending("/get"), cancellation: cancellation)) }
            #expect(server.connections.accepted == 0)
        }
    }

    @Test func cancellingWhileWaitingForTheHeadEndsTheRequest() async throws {
        try await withServerAndTransport { server, transport in
            let cancellation = TransportCancellation()
            let request = TransportRequest(url: server.baseURL.appending("/delay/10"), cancellation: cancellation)
            let call = Task { try await transport.execute(request).status }
            try await waitUntil("the request reaches the server") { server.connections.accepted == 1 }
            cancellation.cancel()
            await expectTransportCancelled { try await call.value }
            #expect(!call.isCancelled)
        }
    }

    @Test func cancellingDuringTheBodyEndsItWithAnError() async throws {
        try await withServerAndTransport { server, transport in
            let cancellation = TransportCancellation()
            let request = TransportRequest(url: server.baseURL.appending("/drip?numbytes=100&duration=20"), cancellation: cancellation)
            let response = try await transport.execute(request)
            #expect(response.status == .ok)
            cancellation.cancel()
            await expectTransportCancelled { try await response.body.collect(upTo: 1000) }
        }
    }

    @Test func cancellingWhileWaitingForAConnectionLeavesTheQueue() async throws {
        try await withServerAndTransport(transport: .init(maximumConnectionsPerHost: 1)) { server, transport in
            let busy = Task { try await transport.execute(TransportRequest(url: server.baseURL.appending("/delay/10"), cancellation: TransportCancellation())).status }
            try await waitUntil("the only connection is taken") { server.connections.accepted == 1 }
            let cancellation = TransportCancellation()
            let waiting = Task {
                try await transport.execute(TransportRequest(url: server.baseURL.appending("/get"), cancellation: cancellation)).status
            }
            cancellation.cancel()
            await expectTransportCancelled { try await waiting.value }
            busy.cancel()
            await expectTransportCancelled { try await busy.value }
            #expect(server.connections.accepted == 1)
        }
    }
}
