import Foundation
import Lupine
import LupineTestServer
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// The transport's timers are armed lazily (one per connection, one per pool) and only moved
/// earlier; these check that a deadline shorter than the one already armed still fires. The armed
/// timers are an hour out, so a timer that was not moved earlier hangs the test until its time
/// limit fails it.
@Suite(.timeLimit(.minutes(5))) struct LazyTimerTests {
    static let hourLong = TransportConfiguration(maximumConnectionsPerHost: 1, idleConnectionTimeout: .hours(1), readTimeout: .hours(1))

    @Test func aShortDeadlineOnAWarmConnectionFiresBeforeTheArmedOne() async throws {
        try await withServerAndTransport(transport: Self.hourLong) { server, transport in
            // The first request arms the connection's timer an hour out (the read timeout).
            _ = try await transport.get(server.faultsBaseURL.appending("/not-a-fault"))
            let request = TransportRequest(
                url: server.faultsBaseURL.appending("/stall-after-headers"),
                timeout: .milliseconds(300),
                cancellation: TransportCancellation()
            )
            await expectRequestTimeout {
                _ = try await transport.fetch(request)
            }
            // The same connection served both: its timer was re-armed earlier, not replaced by a new one.
            #expect(server.connections.accepted == 1)
        }
    }

    @Test func aWaiterWithAShortDeadlineFailsWhileTheOnlyConnectionIsBusy() async throws {
        try await withServerAndTransport(transport: Self.hourLong) { server, transport in
            // Parks the connection: the pool's timer is armed an hour out for its idle timeout.
            _ = try await transport.get(server.faultsBaseURL.appending("/not-a-fault"))
            let busyEnded = NIOLockedValueBox(false)
            let (headArrived, headContinuation) = AsyncStream<Void>.makeStream()
            let busy = Task {
                // Holds the only connection: the server stalls after the head, for far longer than the test.
                let stalled = TransportRequest(url: server.faultsBaseURL.appending("/stall-after-headers"), cancellation: TransportCancellation())
                if let response = try? await transport.execute(stalled) {
                    headContinuation.finish()
                    _ = try? await response.body.collect(upTo: 1 << 20)
                }
                headContinuation.finish()
                busyEnded.withLockedValue { $0 = true }
            }
            for await _ in headArrived {}
            let waiting = TransportRequest(url: server.faultsBaseURL.appending("/not-a-fault"), timeout: .milliseconds(300), cancellation: TransportCancellation())
            await expectRequestTimeout {
                _ = try await transport.fetch(waiting)
            }
            // It failed while it was still queued, not after the busy request let go of the connection.
            #expect(busyEnded.withLockedValue { $0 } == false)
            busy.cancel()
            _ = await busy.result
        }
    }
}
