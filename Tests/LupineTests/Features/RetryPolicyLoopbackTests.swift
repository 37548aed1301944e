import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

@Suite("RetryPolicy over loopback")
struct RetryPolicyLoopbackTests {
    /// The defaults with 10 ms steps and no jitter, so storms end quickly and predictably.
    static let quick = RetryPolicy(exponentialBackoffBase: 1, exponentialBackoffScale: .milliseconds(10), jitter: false)

    /// Runs `body` with a server and a session retrying with `policy`, whose retry decisions are
    /// recorded. Waits are checked by the decision, not by the clock, so a loaded machine does not
    /// fail the tests.
    static func withRecordedDecisions(
        over wire: WireProtocol? = nil,
        _ policy: RetryPolicy = quick,
        _ body: (LupineTestServer, SessionManager, Recorder<DecisionOutcome>) async throws -> Void
    ) async throws {
        try await withSessionManager(over: wire) { server, manager in
            manager.interceptor = policy
            let decisions = Recorder<DecisionOutcome>()
            manager.eventMonitors = [DecisionMonitor(decisions: decisions)]
            try await body(server, manager, decisions)
        }
    }

    @Test(arguments: WireProtocol.allCases) func failsNTimesThenSucceeds(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { server, manager in
            manager.interceptor = Self.quick
            let completion = await manager.complete(server.request("/retry/k/fail/2"))
            #expect(completion.error == nil)
            #expect(completion.statusCode == 200)
            #expect(completion.retryCount == 2)
            #expect(completion.transactionMetrics.count == 3)
            #expect(server.attempts(forKey: "k") == 3)
        }
    }

    @Test(arguments: WireProtocol.allCases) func honoursRetryAfterSecondsOn429And503(over wire: WireProtocol) async throws {
        try await Self.withRecordedDecisions(over: wire) { server, manager, decisions in
            let now = await manager.complete(server.request("/retry/now/retry-after/1?status=429&after=0"))
            #expect(now.statusCode == 200)
            #expect(server.attempts(forKey: "now") == 2)
            let clock = ContinuousClock()
            let started = clock.now
            let later = await manager.complete(server.request("/retry/later/retry-after/1?status=503&after=1"))
            let waited = clock.now - started
            #expect(later.statusCode == 200)
            #expect(waited >= .milliseconds(950))
            #expect(decisions.all == [.retry, .retryAfter(.seconds(1))])
        }
    }

    @Test(arguments: WireProtocol.allCases) func honoursRetryAfterDatesIncludingPastOnes(over wire: WireProtocol) async throws {
        try await Self.withRecordedDecisions(over: wire) { server, manager, decisions in
            let past = await manager.complete(server.request("/retry/past/retry-after/1?status=429&date=-30"))
            #expect(past.statusCode == 200)
            #expect(decisions.all == [.retry])
            // One second ahead, in whole seconds: a wait of at most a second.
            let soon = await manager.complete(server.request("/retry/soon/retry-after/1?status=429&date=1"))
            #expect(soon.statusCode == 200)
            #expect(server.attempts(forKey: "soon") == 2)
            switch decisions.all.last {
            case .retry?: break
            case .retryAfter(let delay)?: #expect(delay <= .seconds(1))
            default: Issue.record("expected a retry, got \(decisions.all)")
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func capsAServersLongWaitAtTheMaximumDelay(over wire: WireProtocol) async throws {
        try await Self.withRecordedDecisions(over: wire, RetryPolicy(maximumDelay: .milliseconds(50), jitter: false)) { server, manager, decisions in
            let completion = await manager.complete(server.request("/retry/cap/retry-after/1?status=429&after=99999"))
            #expect(completion.statusCode == 200, "\(completion.error.map { "\($0)" } ?? "")")
            // More seconds than an integer holds: the longest wait, cut to the maximum as well.
            let huge = await manager.complete(server.request("/retry/cap-huge/retry-after/1?status=429&after=99999999999999999999"))
            #expect(huge.statusCode == 200, "\(huge.error.map { "\($0)" } ?? "")")
            #expect(decisions.all == [.retryAfter(.milliseconds(50)), .retryAfter(.milliseconds(50))])
        }
    }

    @Test(arguments: WireProtocol.allCases) func ignoresAbsurdRetryAfter(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { server, manager in
            manager.interceptor = Self.quick
            for value in ["-1", "soon", "1.5"] {
                let unavailable = await manager.complete(server.request("/retry/u\(value)/retry-after/1?after=\(value)"))
                #expect(unavailable.statusCode == 200, "503 falls back to the backoff for \(value)")
                let tooMany = await manager.complete(server.request("/retry/t\(value)/retry-after/1?status=429&after=\(value)"))
                #expect(tooMany.statusCode == 429, "429 is not retried for \(value)")
                #expect(server.attempts(forKey: "t\(value)") == 1)
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func aStormEndsAtTheLimitAndAtTheBudget(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { server, manager in
            manager.interceptor = RetryPolicy(retryLimit: 3, exponentialBackoffBase: 1, exponentialBackoffScale: .milliseconds(5), jitter: false)
            let limited = await manager.complete(server.request("/retry/storm/fail/1000"))
            #expect(limited.statusCode == 503)
            #expect(server.attempts(forKey: "storm") == 4)

            manager.interceptor = RetryPolicy(
                retryLimit: 1000,
                exponentialBackoffBase: 1,
                exponentialBackoffScale: .milliseconds(100),
                maximumTotalTime: .milliseconds(350),
                jitter: false
            )
            let budgeted = await manager.complete(server.request("/retry/budget/fail/1000"))
            #expect(budgeted.statusCode == 503)
            // 350 ms hold at most 3 waits of 100 ms (fewer when the machine is slow).
            #expect((1...4).contains(server.attempts(forKey: "budget")))
        }
    }

    @Test func retriesARefusedConnection() async throws {
        let closed = try ClosedPort()
        let manager = SessionManager(configuration: TransportConfiguration())
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.interceptor = Self.quick
        let completion = await manager.complete(Request(url: closed.url.appending("/get")))
        #expect(completion.retryCount == 2)
        guard case .transport(.connectionFailed) = completion.error else {
            Issue.record("expected a refused connection, got \(String(describing: completion.error))")
            return
        }
    }

    @Test func retriesAReadThatTimedOut() async throws {
        let server = try await LupineTestServer.start()
        var configuration = TransportConfiguration()
        configuration.readTimeout = .milliseconds(100)
        let manager = SessionManager(configuration: configuration)
        manager.interceptor = Self.quick
        let completion = await manager.complete(Request(url: server.faultsBaseURL.appending("/stall-before-headers")))
        let accepted = server.connections.accepted
        manager.invalidateSession(cancelingTasks: true)
        await server.stop()
        #expect(completion.retryCount == 2)
        #expect(accepted == 3)
        guard case .transport(.readTimeout) = completion.error else {
            Issue.record("expected a read timeout, got \(String(describing: completion.error))")
            return
        }
    }

    @Test(arguments: WireProtocol.allCases) func neverRetriesAPostOrAStreamBody(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { server, manager in
            manager.interceptor = Self.quick
            let post = await manager.complete(server.request("/retry/post/fail/1", method: .POST))
            #expect(post.statusCode == 503)
            #expect(server.attempts(forKey: "post") == 1)

            var streamed = server.request("/retry/stream/fail/1", method: .PUT)
            streamed.body = .stream(length: 3) {
                AsyncThrowingStream { continuation in
                    continuation.yield(ByteBuffer(bytes: [1, 2, 3]))
                    continuation.finish()
                }
            }
            let stream = await manager.complete(streamed)
            #expect(stream.statusCode == 503)
            #expect(stream.retryCount == 0)
            #expect(server.attempts(forKey: "stream") == 1)
        }
    }

    @Test(arguments: WireProtocol.allCases) func aRequestsOwnPolicyRunsWithoutTheSessions(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { server, manager in
            let completion = await manager.complete(server.request("/retry/own/fail/1", interceptor: Self.quick))
            #expect(completion.statusCode == 200)
            #expect(server.attempts(forKey: "own") == 2)
        }
    }

    @Test(arguments: WireProtocol.allCases) func cancellingDuringTheDelayEndsAtOnceWithNoFurtherAttempt(over wire: WireProtocol) async throws {
        // The server asks for an hour's wait; the test passes only if the cancel ends it.
        let patient = RetryPolicy(maximumDelay: .seconds(3600), maximumTotalTime: .seconds(7200), jitter: false)
        try await Self.withRecordedDecisions(over: wire, patient) { server, manager, decisions in
            let clock = ContinuousClock()
            var cancelledAt = clock.now
            let completion = try await manager.complete(server.request("/retry/cancel/retry-after/1?after=3600")) { task in
                try await waitUntil("the retry was decided") { !decisions.all.isEmpty }
                cancelledAt = clock.now
                task.cancel()
            }
            #expect(clock.now - cancelledAt < .seconds(30))
            guard case .cancelled = completion.error else {
                Issue.record("expected a cancellation, got \(String(describing: completion.error))")
                return
            }
            #expect(decisions.all == [.retryAfter(.seconds(3600))])
            #expect(server.attempts(forKey: "cancel") == 1)
        }
    }
}

/// Records each retry decision of a session's tasks.
struct DecisionMonitor: EventMonitor {
    let decisions: Recorder<DecisionOutcome>

    func task(_ task: SessionTask, didDecide decision: RetryDecision, for context: RetryContext) {
        self.decisions.append(DecisionOutcome(decision))
    }
}
