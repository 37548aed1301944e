import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

/// Keep-alive reuse and per-host limits, counted on the server side.
@Suite struct ConnectionReuseTests {
    @Test func thousandSequentialRequestsUseOneConnection() async throws {
        try await withServerAndTransport { server, transport in
            for index in 0..<1000 {
                let (response, _) = try await transport.get(server.baseURL.appending("/bytes/100"))
                #expect(response.status == .ok)
                if index > 0 {
                    #expect(response.metrics.isReusedConnection)
                }
            }
            #expect(server.connections.accepted == 1)
        }
    }

    @Test func concurrentRequestsStayWithinTheHostLimit() async throws {
        try await withServerAndTransport(transport: .init(maximumConnectionsPerHost: 6)) { server, transport in
            let url = server.baseURL.appending("/bytes/100")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<64 {
                    group.addTask {
                        for _ in 0..<(1000 / 64 + (worker < 1000 % 64 ? 1 : 0)) {
                            let (response, body) = try await transport.get(url)
                            #expect(response.status == .ok)
                            #expect(body.readableBytes == 100)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(server.connections.peakOpen <= 6)
            #expect(server.connections.accepted <= 6)
        }
    }

    @Test func connectionCloseAndHTTP10ResponsesAreNotReused() async throws {
        try await withServerAndTransport { server, transport in
            for path in ["/connection-close", "/http10", "/connection-close"] {
                let (response, body) = try await transport.get(server.faultsBaseURL.appending(path))
                #expect(response.status == .ok)
                #expect(body.readableBytes > 0)
                #expect(response.metrics.isReusedConnection == false)
            }
            #expect(server.connections.accepted == 3)
        }
    }

    @Test func staleKeepAliveConnectionIsRetriedOnceOnANewConnection() async throws {
        try await withServerAndTransport { server, transport in
            let url = server.faultsBaseURL.appending("/keep-alive-once")
            let (first, _) = try await transport.get(url)
            #expect(first.status == .ok)
            // The server drops the reused connection without answering; GET is idempotent, so it is retried.
            let (second, body) = try await transport.get(url)
            #expect(second.status == .ok)
            #expect(second.metrics.isReusedConnection == false)
            #expect(body.jsonObject?["request"] as? Int == 1)
            #expect(server.connections.accepted == 2)
        }
    }

    @Test func nonIdempotentRequestOnStaleConnectionIsNotRetried() async throws {
        try await withServerAndTransport { server, transport in
            let url = server.faultsBaseURL.appending("/keep-alive-once")
            _ = try await transport.get(url)
            await #expect {
                _ = try await transport.fetch(TransportRequest(method: .POST, url: url, cancellation: TransportCancellation()))
            } throws: { error in
                guard case TransportError.connectionClosedBeforeResponse = error else { return false }
                return true
            }
        }
    }

    @Test func serverClosingIdleConnectionsDoesNotBreakTheNextRequest() async throws {
        try await withServerAndTransport(server: .init(idleTimeout: .seconds(6))) { server, transport in
            let url = server.baseURL.appending("/get")
            _ = try await transport.get(url)
            try await waitUntil(timeout: .seconds(20), "the server closes the idle connection") { server.connections.open == 0 }
            let (response, _) = try await transport.get(url)
            #expect(response.status == .ok)
            #expect(server.connections.accepted == 2)
        }
    }

    @Test func idleConnectionsAreClosedAfterTheIdleTimeout() async throws {
        let configuration = TransportConfiguration(idleConnectionTimeout: .milliseconds(50))
        try await withServerAndTransport(transport: configuration) { server, transport in
            _ = try await transport.get(server.baseURL.appending("/get"))
            try await waitUntil("the client closes its idle connection") { server.connections.open == 0 }
        }
    }
}
