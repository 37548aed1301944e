import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

@testable import Lupine

@Suite("AuthenticationInterceptor over loopback")
struct AuthenticationInterceptorTests {
    typealias Bearer = AuthenticationInterceptor<BearerAuthenticator>

    /// Why authentication failed, when it did: a retrier's LupineError reaches the task as itself.
    static func reason(_ error: LupineError?) -> LupineError.AuthenticationFailureReason? {
        switch error {
        case .authenticationFailed(let reason)?:
            return reason
        default:
            return nil
        }
    }

    /// Runs `count` requests to `path` at once through `manager`.
    static func concurrently(_ count: Int, _ manager: SessionManager, _ request: Request) async -> [TaskCompletion] {
        await withTaskGroup(of: TaskCompletion.self) { group in
            for _ in 0..<count {
                group.addTask { await manager.complete(request) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// An interceptor holding `stale` whose refresh gives `fresh` once `gate` opens, or times out
    /// after `timeout`.
    static func refreshingToFresh(after gate: Gate, timeout: Duration = .seconds(120)) -> (BearerAuthenticator, Bearer) {
        let authenticator = BearerAuthenticator { _ in
            await gate.wait()
            return BearerToken(token: "fresh")
        }
        let interceptor = Bearer(authenticator: authenticator, credential: BearerToken(token: "stale"), refreshTimeout: timeout)
        return (authenticator, interceptor)
    }

    @Test func aHundredRefusedRequestsCauseOneRefreshAndAllSucceed() async throws {
        let gate = Gate()
        let (authenticator, interceptor) = Self.refreshingToFresh(after: gate)
        try await withSessionManager { server, manager in
            manager.interceptor = interceptor
            async let completions = Self.concurrently(100, manager, server.request("/bearer/fresh"))
            // Every request was refused and waits for the one refresh; then it may end.
            try await waitUntil("all 100 refused") { interceptor.waitingCount == 100 }
            await gate.open()
            let all = await completions
            #expect(all.count == 100)
            #expect(all.allSatisfy { $0.statusCode == 200 && $0.error == nil })
            #expect(authenticator.refreshes.all == ["stale"])
            #expect(server.attempts(forKey: "bearer-fresh") == 200)
            #expect(interceptor.credential?.token == "fresh")
        }
    }

    /// `Task.sleep` traps on a delay past 2^63 ns: a refresh timeout of `Int64.max` seconds
    /// (no timeout, as a caller may write it) is waited within what it takes.
    @Test func anEndlessRefreshTimeoutIsNoTrap() async throws {
        let gate = Gate()
        let (authenticator, interceptor) = Self.refreshingToFresh(after: gate, timeout: .seconds(Int64.max))
        try await withSessionManager { server, manager in
            manager.interceptor = interceptor
            async let completions = Self.concurrently(2, manager, server.request("/bearer/fresh"))
            try await waitUntil("both refused") { interceptor.waitingCount == 2 }
            await gate.open()
            #expect(await completions.allSatisfy { $0.statusCode == 200 && $0.error == nil })
            #expect(authenticator.refreshes.all == ["stale"])
        }
    }

    @Test func aRefreshThatThrowsFailsEveryWaiter() async throws {
        let gate = Gate()
        let authenticator = BearerAuthenticator { _ in
            await gate.wait()
            throw RefreshRefused()
        }
        let interceptor = Bearer(authenticator: authenticator, credential: BearerToken(token: "stale"))
        try await withSessionManager { server, manager in
            manager.interceptor = interceptor
            async let completions = Self.concurrently(10, manager, server.request("/bearer/fresh"))
            try await waitUntil("all 10 refused") { interceptor.waitingCount == 10 }
            await gate.open()
            for completion in await completions {
                guard case .refreshFailed(let underlying)? = Self.reason(completion.error) else {
                    Issue.record("expected a failed refresh, got \(String(describing: completion.error))")
                    continue
                }
                #expect(underlying is RefreshRefused)
            }
            #expect(authenticator.refreshes.all == ["stale"])
            #expect(interceptor.credential?.token == "stale")
        }
    }

    @Test func aHangingRefreshTimesOutAndIsCancelled() async throws {
        let cancelled = Recorder<Bool>()
        let authenticator = BearerAuthenticator { credential in
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.append(true)
                throw error
            }
            return credential
        }
        let interceptor = Bearer(authenticator: authenticator, credential: BearerToken(token: "stale"), refreshTimeout: .milliseconds(200))
        try await withSessionManager { server, manager in
            manager.interceptor = interceptor
            let clock = ContinuousClock()
            let started = clock.now
            let completion = await manager.complete(server.request("/bearer/fresh"))
            // Far less than the refresh's hour: the timeout ended it (a slow machine adds seconds).
            #expect(clock.now - started < .seconds(60))
            guard case .refreshTimedOut(let timeout)? = Self.reason(completion.error) else {
                Issue.record("expected a refresh timeout, got \(String(describing: completion.error))")
                return
            }
            #expect(timeout == .milliseconds(200))
            try await waitUntil("the hanging refresh was cancelled") { cancelled.all == [true] }
        }
    }

    @Test func refreshingTooOftenFails() async throws {
        let authenticator = BearerAuthenticator { BearerToken(token: $0.token + "+") }
        let window = Bearer.RefreshWindow(interval: .seconds(30), maximumAttempts: 2)
        let interceptor = Bearer(authenticator: authenticator, credential: BearerToken(token: "wrong"), refreshWindow: window)
        try await withSessionManager { server, manager in
            manager.interceptor = interceptor
            let completion = await manager.complete(server.request("/bearer/right"))
            guard case .excessiveRefresh(let count, let interval)? = Self.reason(completion.error) else {
                Issue.record("expected an excessive refresh, got \(String(describing: completion.error))")
                return
            }
            #expect(count == 2 && interval == .seconds(30))
            #expect(authenticator.refreshes.all == ["wrong", "wrong+"])
            #expect(server.attempts(forKey: "bearer-right") == 3)
        }
    }

    @Test func noCredentialSendsNothing() async throws {
        let interceptor = Bearer(authenticator: BearerAuthenticator { $0 })
        try await withSessionManager { server, manager in
            manager.interceptor = interceptor
            let completion = await manager.complete(server.request("/bearer/t"))
            guard case .authenticationFailed(.missingCredential)? = completion.error else {
                Issue.record("expected a missing credential, got \(String(describing: completion.error))")
                return
            }
            #expect(server.attempts(forKey: "bearer-t") == 0)
        }
    }

    @Test func anExpiredCredentialIsRefreshedBeforeSending() async throws {
        let authenticator = BearerAuthenticator { _ in BearerToken(token: "fresh") }
        let interceptor = Bearer(authenticator: authenticator, credential: BearerToken(token: "old", requiresRefresh: true))
        try await withSessionManager { server, manager in
            manager.interceptor = interceptor
            let completion = await manager.complete(server.request("/bearer/fresh"))
            #expect(completion.statusCode == 200)
            #expect(authenticator.refreshes.all == ["old"])
            #expect(server.attempts(forKey: "bearer-fresh") == 1)
        }
    }

    @Test func cancellingARequestThatWaitsForARefreshEndsItAtOnce() async throws {
        let gate = Gate()
        // The timeout only bounds the test should the cancellation not end the wait.
        let (_, interceptor) = Self.refreshingToFresh(after: gate, timeout: .seconds(60))
        try await withSessionManager { server, manager in
            manager.interceptor = interceptor
            async let first = manager.complete(server.request("/bearer/fresh"))
            try await waitUntil("the first request waits for its refresh") { interceptor.waitingCount == 1 }
            let clock = ContinuousClock()
            var cancelledAt = clock.now
            let second = try await manager.complete(server.request("/bearer/fresh")) { task in
                try await waitUntil("the second request waits too") { interceptor.waitingCount == 2 }
                cancelledAt = clock.now
                task.cancel()
            }
            #expect(clock.now - cancelledAt < .seconds(30))
            guard case .cancelled? = second.error else {
                Issue.record("expected a cancellation, got \(String(describing: second.error))")
                return
            }
            #expect(interceptor.waitingCount == 1)
            await gate.open()
            #expect(await first.statusCode == 200)
            #expect(server.attempts(forKey: "bearer-fresh") == 2)
        }
    }

    @Test func aRefusalOfAnOlderCredentialIsRetriedWithoutARefresh() async throws {
        let authenticator = BearerAuthenticator { $0 }
        let interceptor = Bearer(authenticator: authenticator, credential: BearerToken(token: "current"))
        var older = Request(url: RetryContextFixtures.url)
        older.setValue("Bearer older", forHTTPHeaderField: "Authorization")
        let retried = try await interceptor.retry(RetryContextFixtures.response(401, request: older))
        #expect(DecisionOutcome(retried) == .retry)
        #expect(authenticator.refreshes.all.isEmpty)
        #expect(DecisionOutcome(try await interceptor.retry(RetryContextFixtures.response(403))) == .doNotRetry)
        let lost = RetryContextFixtures.failure(.transport(.connectionClosedBeforeResponse))
        #expect(DecisionOutcome(try await interceptor.retry(lost)) == .doNotRetry)
    }
}
