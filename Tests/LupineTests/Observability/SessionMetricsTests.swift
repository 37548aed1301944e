import Foundation
import Lupine
import LupineTestServer
import MetricsTestKit
import Testing

/// The metrics of ``SessionManager/metrics`` as swift-metrics' own test backend (`TestMetrics`,
/// a real `MetricsFactory` that keeps what it is given) receives them, for requests to the test
/// server: a success, a 404, a refused connection, a retried request and a cache hit.
@Suite struct SessionMetricsTests {
    /// A session whose metrics go to a test backend of its own, with `labelPrefix` `t`.
    private func withMeteredSession(_ body: (LupineTestServer, HTTPSessionManager, TestMetrics, SessionMetrics) async throws -> Void) async throws {
        try await withSessionManager { server, manager in
            let backend = TestMetrics()
            let metrics = SessionMetrics(factory: backend, labelPrefix: "t")
            manager.metrics = metrics
            try await body(server, manager, backend, metrics)
        }
    }

    @Test func aSuccessIsStartedCompletedTimedAndCounted() async throws {
        try await withMeteredSession { server, manager, backend, metrics in
            _ = try await manager.get("get")
            #expect(backend.counterTotal(label: metrics.label(.requestsStarted), dimensions: [("method", "GET")]) == 1)
            #expect(backend.counterTotal(label: metrics.label(.requestsCompleted), dimensions: [("method", "GET"), ("status_class", "2xx")]) == 1)
            #expect(backend.timers(label: metrics.label(.requestDuration), dimensions: [("method", "GET"), ("status_class", "2xx")]).flatMap(\.values).count == 1)
            #expect(backend.timers(label: metrics.label(.timeToFirstByte), dimensions: [("method", "GET")]).flatMap(\.values).count == 1)
            #expect(backend.counterTotal(label: metrics.label(.bytesSent)) > 0)
            #expect(backend.counterTotal(label: metrics.label(.bytesReceived)) > 0)
            #expect(backend.counters(label: metrics.label(.requestErrors)).isEmpty)
            #expect(backend.counters(label: metrics.label(.retries)).isEmpty)
            #expect(backend.counters(label: metrics.label(.cacheHits)).isEmpty)

            // The one connection the request used, open (idle or not yet given back) when the task ended.
            let pool = [("pool", server.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")))]
            #expect(try backend.expectGauge(metrics.label(.poolOpenConnections), pool).lastValue == 1)
            let idle = try backend.expectGauge(metrics.label(.poolIdleConnections), pool).lastValue ?? -1
            #expect((0...1).contains(idle))
        }
    }

    @Test func a404CompletesAs4xxWithoutAnError() async throws {
        try await withMeteredSession { server, manager, backend, metrics in
            // The JSON serializer refuses the status: the task's error, not a failed request.
            await #expect(throws: LupineError.self) { _ = try await manager.get("status/404") }
            #expect(backend.counterTotal(label: metrics.label(.requestsCompleted), dimensions: [("method", "GET"), ("status_class", "4xx")]) == 1)
            #expect(backend.timers(label: metrics.label(.requestDuration), dimensions: [("method", "GET"), ("status_class", "4xx")]).flatMap(\.values).count == 1)
            #expect(backend.counters(label: metrics.label(.requestErrors)).isEmpty)
        }
    }

    @Test func aRefusedConnectionIsAnErrorOfItsKind() async throws {
        let closed = try ClosedPort()
        try await withMeteredSession { server, manager, backend, metrics in
            await #expect(throws: LupineError.self) { _ = try await manager.get(closed.url.absoluteString + "/get") }
            #expect(backend.counterTotal(label: metrics.label(.requestsStarted), dimensions: [("method", "GET")]) == 1)
            #expect(backend.counterTotal(label: metrics.label(.requestsCompleted), dimensions: [("method", "GET"), ("status_class", "none")]) == 1)
            #expect(backend.counterTotal(label: metrics.label(.requestErrors), dimensions: [("kind", "connectionFailed")]) == 1)
            #expect(backend.timers(label: metrics.label(.timeToFirstByte)).isEmpty)
        }
    }

    @Test func aRetryIsCountedAndTheRequestCompletesOnce() async throws {
        try await withMeteredSession { server, manager, backend, metrics in
            manager.interceptor = RetryPolicy(retryLimit: 1, jitter: false)
            let recovered = try await manager.get("retry/metered/fail/1")  // a 503, then 200
            #expect(recovered.head?.statusCode == 200)
            #expect(backend.counterTotal(label: metrics.label(.retries), dimensions: [("method", "GET")]) == 1)
            #expect(backend.counterTotal(label: metrics.label(.requestsStarted), dimensions: [("method", "GET")]) == 1)
            #expect(backend.counterTotal(label: metrics.label(.requestsCompleted), dimensions: [("method", "GET"), ("status_class", "2xx")]) == 1)
            #expect(backend.counters(label: metrics.label(.requestsCompleted), dimensions: [("status_class", "5xx")]).isEmpty)
        }
    }

    @Test func aCachedResponseIsACacheHit() async throws {
        try await withMeteredSession { server, manager, backend, metrics in
            // The manager's own transport comes with an in-memory HTTPCache.
            _ = try await manager.get("cache/600")
            _ = try await manager.get("cache/600")
            #expect(backend.counterTotal(label: metrics.label(.cacheHits), dimensions: [("cache_status", "hit")]) == 1)
            #expect(backend.counterTotal(label: metrics.label(.requestsCompleted), dimensions: [("method", "GET"), ("status_class", "2xx")]) == 2)
        }
    }

    @Test func metricsGoToTheSessionsOwnBackendAndStopWhenUnset() async throws {
        try await withMeteredSession { server, manager, backend, metrics in
            let other = HTTPSessionManager(baseURL: server.baseURL)
            defer { other.invalidateSession(cancelingTasks: true) }
            _ = try await other.get("get")
            #expect(backend.counters.isEmpty)

            manager.metrics = nil
            #expect(manager.metrics == nil)
            _ = try await manager.get("get")
            #expect(backend.counters.isEmpty)
        }
    }
}
