import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// The lazily armed timers and requests started by whoever frees a connection, under races:
/// races between a queued waiter being served and being cancelled, shutdown with waiters queued,
/// deadlines of requests started for a waiter, and the stale-connection retry behind other waiters.
@Suite(.timeLimit(.minutes(5))) struct PoolRaceTests {
    static let hourLong = TransportConfiguration(maximumConnectionsPerHost: 1, idleConnectionTimeout: .hours(1), readTimeout: .hours(1))

    /// A follow-up on the same host must get the (only) connection back promptly: a 10 s deadline
    /// instead of the hour-long read timeout turns a leaked connection into a clear failure.
    static func followUpSucceeds(_ transport: NIOTransport, _ server: LupineTestServer) async throws {
        let request = TransportRequest(url: server.faultsBaseURL.appending("/not-a-fault"), timeout: .seconds(10), cancellation: TransportCancellation())
        _ = try await transport.fetch(request)
    }

    /// A waiter is cancelled at varying moments around the release that serves it, by its
    /// `TransportCancellation` or by its Swift task. Its request, if started, must be cancelled on
    /// the wire (the server never answers it), and the pool's one connection must serve the next request.
    @Test(arguments: [false, true])
    func cancellingAWaiterAroundItsDeliveryNeverLeaksTheConnection(cancelTask: Bool) async throws {
        try await withServerAndTransport(transport: Self.hourLong) { server, transport in
            for round in 0..<20 {
                let holderRequest = TransportRequest(url: server.faultsBaseURL.appending("/drip?bytes=3&interval_ms=5"), cancellation: TransportCancellation())
                let holderResponse = try await transport.execute(holderRequest)
                let cancellation = TransportCancellation()
                let waiter = Task {
                    // Never answered: only a cancel ends it (or the hour-long timeouts).
                    let request = TransportRequest(url: server.faultsBaseURL.appending("/stall-before-headers"), cancellation: cancellation)
                    _ = try await transport.execute(request)
                }
                for _ in 0..<(round % 5) { await Task.yield() }
                _ = try await holderResponse.body.collect(upTo: 1000)
                for _ in 0..<(round % 3) { await Task.yield() }
                if cancelTask { waiter.cancel() } else { cancellation.cancel() }
                let result = await waiter.result
                switch result {
                case .success: Issue.record("round \(round): a stalled request succeeded")
                case .failure(let error):
                    guard case TransportError.cancelled = error else {
                        Issue.record("round \(round): \(error)")
                        break
                    }
                }
                try await Self.followUpSucceeds(transport, server)
            }
            // The server learns of the client's closes a moment later.
            try await waitUntil(timeout: .seconds(60), "at most the pool's one connection stays open") { server.connections.open <= 1 }
        }
    }

    /// Shutting down with requests queued behind a busy connection fails every one of them at
    /// once; none hangs and none is started.
    @Test func shutdownWithQueuedWaitersFailsThemAll() async throws {
        let server = try await LupineTestServer.start()
        let transport = NIOTransport(configuration: Self.hourLong)
        let stalled = TransportRequest(url: server.faultsBaseURL.appending("/stall-after-headers"), cancellation: TransportCancellation())
        let busy = try await transport.execute(stalled)
        let waiters = (0..<5).map { _ in
            Task {
                let request = TransportRequest(url: server.faultsBaseURL.appending("/not-a-fault"), cancellation: TransportCancellation())
                _ = try await transport.fetch(request)
            }
        }
        for _ in 0..<10 { await Task.yield() }
        await transport.shutdown()
        for waiter in waiters {
            let result = await waiter.result
            if case .success = result { Issue.record("a queued request succeeded after shutdown") }
        }
        await #expect(throws: (any Error).self) { _ = try await busy.body.collect(upTo: 1000) }
        await server.stop()
    }

    /// A request that waited for the connection and is started by the release keeps its own short
    /// deadline, though the connection's watchdog is armed an hour out.
    @Test func aRequestStartedForAWaiterKeepsItsShortDeadline() async throws {
        try await withServerAndTransport(transport: Self.hourLong) { server, transport in
            let holderRequest = TransportRequest(url: server.faultsBaseURL.appending("/drip?bytes=4&interval_ms=50"), cancellation: TransportCancellation())
            let holder = try await transport.execute(holderRequest)
            let started = ContinuousClock.now
            let waiter = Task {
                let request = TransportRequest(url: server.faultsBaseURL.appending("/stall-after-headers"), timeout: .seconds(1), cancellation: TransportCancellation())
                _ = try await transport.fetch(request)
            }
            _ = try await holder.body.collect(upTo: 1000)
            let result = await waiter.result
            guard case .failure(TransportError.requestTimeout) = result else {
                Issue.record("\(result)")
                return
            }
            // Its own 1 s deadline, not the watchdog's hour: any bound far below the hour tells
            // them apart, and a generous one holds on a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(120))
        }
    }

    /// Every request to a server that drops every reused connection succeeds: a request that
    /// fails on a reused connection is retried on a new one, even when, with one connection per
    /// host, the retry waits behind other requests and a released connection comes free first.
    @Test func aRetryQueuedBehindOthersStillGetsANewConnection() async throws {
        try await withServerAndTransport(transport: .init(maximumConnectionsPerHost: 1)) { server, transport in
            let url = server.faultsBaseURL.appending("/keep-alive-once")
            _ = try await transport.get(url)
            let results = await withTaskGroup(of: Result<Int, any Error>.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            let (response, _) = try await transport.get(url)
                            return .success(Int(response.status.code))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                var results: [Result<Int, any Error>] = []
                for await result in group { results.append(result) }
                return results
            }
            let failures = results.compactMap { result -> String? in
                if case .failure(let error) = result { return "\(error)" }
                return nil
            }
            #expect(failures.isEmpty, "\(failures)")
        }
    }

    /// Idle connections reused before their idle deadline are still closed after the later one:
    /// the pool's one timer re-arms for the newer deadline (a new generation), not just the first.
    @Test func aConnectionReusedBeforeItsIdleDeadlineIsClosedAfterTheLaterOne() async throws {
        let configuration = TransportConfiguration(maximumConnectionsPerHost: 1, idleConnectionTimeout: .milliseconds(300))
        try await withServerAndTransport(transport: configuration) { server, transport in
            let url = server.baseURL.appending("/get")
            _ = try await transport.get(url)
            // Reuse it a few times inside the first idle period, each leaving a new generation.
            for _ in 0..<5 { _ = try await transport.get(url) }
            // How many connections served them depends on the machine's speed against the 300 ms
            // idle timeout; what matters is that the last one is closed once it has been idle.
            try await waitUntil(timeout: .seconds(60), "the client closes its idle connection") { server.connections.open == 0 }
        }
    }
}
