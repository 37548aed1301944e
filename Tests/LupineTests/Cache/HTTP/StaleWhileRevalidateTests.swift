import Foundation
import LupineTestServer
import LupineTestSupport
import NIOConcurrencyHelpers
import Testing

@testable import Lupine

/// `stale-while-revalidate` (RFC 5861 §3) in the session's loop, over loopback against the
/// counted endpoint: the stale response is delivered while its one background revalidation is
/// held in the session's adapter, so nothing in these tests waits on a clock.
@Suite struct StaleWhileRevalidateTests {
    /// Stale at once (`max-age=0`) and servable stale for ten minutes.
    private static let staleForTenMinutes = ("Cache-Control", "max-age=0, stale-while-revalidate=600")

    @Test func theStaleResponseComesAtOnceAndOneBackgroundRequestRefreshesIt() async throws {
        try await withServerAndTransport { server, transport in
            let cache = HTTPCache(memoryCapacity: 1 << 20)
            let manager = cachingManager(transport, cache: cache)
            let hold = ConditionalHold()
            manager.interceptor = hold
            let url = countedURL(server, "swr", [Self.staleForTenMinutes, ("ETag", "\"s\""), ("X-Seen", "{count}")])
            #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .miss)

            // Delivered while the revalidation is held before it is sent: nothing waited for it.
            let stale = await completion(of: Request(url: url), on: manager)
            #expect(stale.cacheStatus == .stale)
            #expect(stale.servedCount == 1)
            #expect(stale.response?.headers.first(name: "X-Seen") == "1")
            try await waitUntil("the background revalidation is held") { hold.held == 1 }
            // A second stale hit meanwhile starts no second revalidation.
            #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .stale)
            #expect(server.counted("swr") == (1, 0))

            hold.release()
            await cache.backgroundRevalidationsFinished()
            #expect(hold.conditionalAdaptations == 1)
            #expect(server.counted("swr") == (2, 1))
            // The 304 refreshed the stored head; the body is the stored one.
            let refreshed = await completion(of: Request(url: url), on: manager)
            #expect(refreshed.cacheStatus == .stale)
            #expect(refreshed.response?.headers.first(name: "X-Seen") == "2")
            #expect(refreshed.servedCount == 1)
            await cache.backgroundRevalidationsFinished()
        }
    }

    @Test func aStorable200ReplacesTheEntryAndAnErrorLeavesIt() async throws {
        try await withServerAndTransport { server, transport in
            let cache = HTTPCache(memoryCapacity: 1 << 20)
            let manager = cachingManager(transport, cache: cache)
            // No validator: the background request is unconditional, and its 200 replaces the entry.
            let replaced = countedURL(server, "swr-replaced", [Self.staleForTenMinutes])
            _ = await completion(of: Request(url: replaced), on: manager)
            #expect(await completion(of: Request(url: replaced), on: manager).servedCount == 1)
            await cache.backgroundRevalidationsFinished()
            #expect(await completion(of: Request(url: replaced), on: manager).servedCount == 2)
            await cache.backgroundRevalidationsFinished()

            // The background request's 500 (sent once: the retrier is never asked) leaves the entry.
            let failing = countedURL(server, "swr-failing", [Self.staleForTenMinutes, ("X-Seen", "{count}")])
            let rewriter = LaterAdaptationRewriter(to: countedURL(server, "swr-failing", [Self.staleForTenMinutes], status: 500), retries: 5)
            manager.interceptor = rewriter
            _ = await completion(of: Request(url: failing), on: manager)
            #expect(await completion(of: Request(url: failing), on: manager).cacheStatus == .stale)
            await cache.backgroundRevalidationsFinished()
            #expect(server.counted("swr-failing").requests == 2)
            #expect(rewriter.asked == 0)
            let kept = await completion(of: Request(url: failing), on: manager)
            #expect(kept.servedCount == 1)
            #expect(kept.response?.headers.first(name: "X-Seen") == "1")
            await cache.backgroundRevalidationsFinished()
        }
    }

    @Test func aRedirectEndsTheBackgroundRequest() async throws {
        try await withServerAndTransport { server, transport in
            let cache = HTTPCache(memoryCapacity: 1 << 20)
            let manager = cachingManager(transport, cache: cache)
            let target = countedURL(server, "swr-target", [("Cache-Control", "max-age=60")])
            let url = countedURL(server, "swr-moving", [Self.staleForTenMinutes])
            manager.interceptor = LaterAdaptationRewriter(to: countedURL(server, "swr-moving", [("Location", target.absoluteString)], status: 302))
            _ = await completion(of: Request(url: url), on: manager)
            #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .stale)
            await cache.backgroundRevalidationsFinished()
            #expect(server.counted("swr-moving").requests == 2)
            #expect(server.counted("swr-target").requests == 0)
            // Neither stored nor deleting: the entry is the first response still.
            #expect(await completion(of: Request(url: url), on: manager).servedCount == 1)
            await cache.backgroundRevalidationsFinished()
        }
    }

    @Test func invalidatingTheSessionCancelsTheBackgroundRequest() async throws {
        try await withServerAndTransport { server, transport in
            let cache = HTTPCache(memoryCapacity: 1 << 20)
            let manager = cachingManager(transport, cache: cache)
            let hold = ConditionalHold()
            manager.interceptor = hold
            let url = countedURL(server, "swr-invalidated", [Self.staleForTenMinutes, ("ETag", "\"i\"")])
            _ = await completion(of: Request(url: url), on: manager)
            #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .stale)
            try await waitUntil("the background revalidation is held") { hold.held == 1 }
            manager.invalidateSession(cancelingTasks: false)
            // Returns only because the cancel ended the held revalidation: it was never released.
            await cache.backgroundRevalidationsFinished()
            #expect(server.counted("swr-invalidated") == (1, 0))
            #expect(cache.anyStoredEntry(for: Request(url: url)) != nil)
        }
    }
}

/// An interceptor that sends every adaptation after the first to `target` instead, and retries
/// a failed attempt `retries` times, counting how often it was asked.
final class LaterAdaptationRewriter: RequestInterceptor {
    private let target: URL
    private let allowedRetries: Int
    private let counts = NIOLockedValueBox((adaptations: 0, asked: 0))

    init(to target: URL, retries: Int = 0) {
        self.target = target
        self.allowedRetries = retries
    }

    /// How often a retry was asked for.
    var asked: Int { self.counts.withLockedValue { $0.asked } }

    func adapt(_ request: Request, for context: AdaptContext) async throws -> Request {
        let first = self.counts.withLockedValue { counts in
            counts.adaptations += 1
            return counts.adaptations == 1
        }
        var rewritten = request
        if !first {
            rewritten.url = self.target
        }
        return rewritten
    }

    func retry(_ context: RetryContext) async throws -> RetryDecision {
        let asked = self.counts.withLockedValue { counts in
            counts.asked += 1
            return counts.asked
        }
        return asked <= self.allowedRetries ? .retry : .doNotRetry
    }
}

/// An interceptor that holds each conditional request it adapts (a revalidation) until ``release()``, or until its task is cancelled.
final class ConditionalHold: RequestInterceptor {
    private struct State {
        var released = false
        var held = 0
        var next = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        /// Outcomes that arrived before their waiter did.
        var outcomes: [Int: Bool] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// How many conditional requests were held.
    var held: Int { self.state.withLockedValue { $0.held } }
    var conditionalAdaptations: Int { self.state.withLockedValue { $0.next } }

    func adapt(_ request: Request, for context: AdaptContext) async throws -> Request {
        guard request.headers.contains(name: "If-None-Match") else { return request }
        let id = self.state.withLockedValue { state in
            state.next += 1
            return state.next
        }
        let released = await context.task.cancellation.whileWaiting(onCancel: { self.finish(id, released: false) }) {
            await withCheckedContinuation { continuation in
                let now: Bool? = self.state.withLockedValue { state in
                    state.held += 1
                    if state.released { return true }
                    if let outcome = state.outcomes.removeValue(forKey: id) { return outcome }
                    state.waiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        }
        guard released else { throw LupineError.cancelled }
        return request
    }

    /// Lets every held request, and every later one, go.
    func release() {
        let waiters = self.state.withLockedValue { state in
            state.released = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.resume(returning: true)
        }
    }

    private func finish(_ id: Int, released: Bool) {
        let waiter = self.state.withLockedValue { state in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.outcomes[id] = released
                return nil as CheckedContinuation<Bool, Never>?
            }
            return waiter
        }
        waiter?.resume(returning: released)
    }
}
