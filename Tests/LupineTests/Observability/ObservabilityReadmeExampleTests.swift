import Foundation
import InMemoryTracing
import Lupine
import MetricsTestKit
import Testing
import Tracing

// The README's "Metrics and tracing" examples, verbatim (the first test checks that each line
// of each is here, in order), run against the test server.

@Suite struct ObservabilityReadmeExampleTests {
    @Test func everyMetricsAndTracingExampleOfTheREADMEIsHereVerbatim() throws {
        try ReadmeSection.expectExamples(under: "## Metrics and tracing", count: 2, inFile: #filePath)
    }

    @Test func countingAndTracing() async throws {
        try await withSessionManager { server, manager in
            let metrics = TestMetrics()  // any MetricsFactory: Prometheus, OpenTelemetry, StatsD...
            manager.metrics = SessionMetrics(factory: metrics)  // labels "lupine_requests_started"...
            let tracer = InMemoryTracer()  // any Tracer: swift-otel's writes W3C traceparent
            manager.tracer = tracer
            _ = try await manager.get("get")
            print(metrics.counterTotal(label: "lupine_requests_completed"))  // 1
            print(tracer.finishedSpans.map(\.operationName))  // ["GET"]
            #expect(metrics.counterTotal(label: "lupine_requests_completed") == 1)
            #expect(tracer.finishedSpans.map(\.operationName) == ["GET"])
        }
    }

    /// Nothing is bootstrapped in the tests (a process bootstraps once, and the tests share one):
    /// the bootstrapped backends are swift-metrics' and swift-distributed-tracing's no-op ones,
    /// and a request goes through them.
    @Test func theBootstrappedBackends() async throws {
        try await withSessionManager { server, manager in
            manager.metrics = .bootstrapped
            manager.tracer = InstrumentationSystem.tracer
            #expect(manager.metrics != nil)
            #expect(manager.tracer != nil)
            let response = try await manager.get("get")
            #expect(response.head?.statusCode == 200)
        }
    }
}
