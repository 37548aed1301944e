import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

/// Servers that misbehave: each failure surfaces as its own typed error, never a hang or a short success.
@Suite struct TransportFaultTests {
    @Test func connectionRefusedFailsAtOnce() async throws {
        let closed = try ClosedPort()
        let closedURL = closed.url
        // A connect timeout far above what a refusal takes, even on a loaded machine.
        let transport = NIOTransport(configuration: TransportConfiguration(connectTimeout: .seconds(120)))
        let started = ContinuousClock.now
        await #expect {
            _ = try await transport.get(closedURL.appending("/get"))
        } throws: { error in
            guard case TransportError.connectionFailed = error else { return false }
            return true
        }
        // Not the connect timeout: under a second on a quiet machine, a few on a loaded one.
        #expect(ContinuousClock.now - started < .seconds(60))
        await transport.shutdown()
    }

    @Test func closeMidBodyIsAnErrorNotAShortSuccess() async throws {
        try await withServerAndTransport { server, transport in
            await #expect {
                _ = try await transport.get(server.faultsBaseURL.appending("/close-mid-body"))
            } throws: { error in
                guard case TransportError.connectionClosedMidBody(let received, 1000) = error else { return false }
                return received < 1000
            }
        }
    }

    @Test func contentLengthLongerThanBodyIsAnError() async throws {
        try await withServerAndTransport { server, transport in
            await #expect {
                _ = try await transport.get(server.faultsBaseURL.appending("/content-length-too-long"))
            } throws: { error in
                guard case TransportError.connectionClosedMidBody(60, 100) = error else { return false }
                return true
            }
        }
    }

    @Test func stallAfterHeadersHitsTheReadTimeout() async throws {
        try await withServerAndTransport(transport: .init(readTimeout: .seconds(1))) { server, transport in
            let request = TransportRequest(url: server.faultsBaseURL.appending("/stall-after-headers"), cancellation: TransportCancellation())
            await #expect {
                let response = try await transport.execute(request)
                #expect(response.status == .ok)
                _ = try await response.body.collect(upTo: 1000)
            } throws: { error in
                guard case TransportError.readTimeout = error else { return false }
                return true
            }
        }
    }

    @Test func wholeRequestTimeoutIsItsOwnError() async throws {
        try await withServerAndTransport { server, transport in
            let request = TransportRequest(
                url: server.faultsBaseURL.appending("/drip?bytes=50&interval_ms=50"),
                timeout: .milliseconds(300),
                cancellation: TransportCancellation()
            )
            await expectRequestTimeout {
                _ = try await transport.fetch(request)
            }
        }
    }

    @Test(arguments: ["/malformed-status-line", "/oversized-headers"])
    func protocolViolationIsTypedAndTheConnectionIsDiscarded(path: String) async throws {
        try await withServerAndTransport { server, transport in
            _ = try await transport.get(server.faultsBaseURL.appending("/not-a-fault"))
            #expect(server.connections.accepted == 1)
            await #expect {
                _ = try await transport.get(server.faultsBaseURL.appending(path))
            } throws: { error in
                guard case TransportError.invalidResponse = error else { return false }
                return true
            }
            try await waitUntil("the bad connection is closed") { server.connections.open == 0 }
            let (response, _) = try await transport.get(server.faultsBaseURL.appending("/not-a-fault"))
            #expect(response.status == .notFound)
            #expect(server.connections.accepted == 2)
        }
    }

    @Test func stalledServerWithoutHeadersHitsTheReadTimeout() async throws {
        try await withServerAndTransport(transport: .init(readTimeout: .seconds(1))) { server, transport in
            await #expect {
                _ = try await transport.get(server.faultsBaseURL.appending("/stall-before-headers"))
            } throws: { error in
                guard case TransportError.readTimeout = error else { return false }
                return true
            }
        }
    }

    @Test func cancellingHundredInFlightRequestsLeaksNoDescriptors() async throws {
        // A request cancelled while its connection is still being set up leaves that connection
        // parked idle in the pool, as it should; a short idle timeout lets the pool close it.
        let configuration = TransportConfiguration(maximumConnectionsPerHost: 100, idleConnectionTimeout: .milliseconds(200))
        try await withServerAndTransport(transport: configuration) { server, transport in
            let descriptorsBefore = openFileDescriptorCount()
            let url = server.faultsBaseURL.appending("/stall-before-headers")
            let tasks = (0..<100).map { _ in
                Task { try await transport.get(url) }
            }
            try await waitUntil("all 100 requests reach the server") { server.connections.open == 100 }
            for task in tasks { task.cancel() }
            for task in tasks {
                let result = await task.result
                guard case .failure(TransportError.cancelled) = result else {
                    Issue.record("expected a cancellation error, got \(result)")
                    continue
                }
            }
            try await waitUntil("all connections are closed") { server.connections.open == 0 }
            try await waitUntil("descriptors return to their count") { openFileDescriptorCount() <= descriptorsBefore }
        }
    }

    @Test func abandoningTheBodyCancelsTheRequestAndClosesItsConnection() async throws {
        try await withServerAndTransport { server, transport in
            try await Self.readOneChunk(of: server.baseURL.appending("/stream-bytes/\(64 * 1024 * 1024)"), with: transport)
            try await waitUntil("the abandoned connection is closed") { server.connections.open == 0 }
        }
    }

    private static func readOneChunk(of url: URL, with transport: NIOTransport) async throws {
        let response = try await transport.execute(TransportRequest(url: url, cancellation: TransportCancellation()))
        var iterator = response.body.makeAsyncIterator()
        #expect(try await iterator.next() != nil)
    }
}
