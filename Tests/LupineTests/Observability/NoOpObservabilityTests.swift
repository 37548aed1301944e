import CoreMetrics
import MetricsTestKit
import Testing
import Tracing

@testable import Lupine

/// What the process's metrics and tracer are before anything is bootstrapped (swift-metrics'
/// NOOP factory, the no-op tracer) cost a task nothing: a session set to them observes nothing,
/// while its properties still say what was set.
@Suite struct NoOpObservabilityTests {
    @Test func noOpBackendsMakeNoObservation() {
        #expect(SessionObservability(metrics: SessionMetrics(factory: NOOPMetricsHandler.instance), tracer: NoOpTracer()) == nil)
        #expect(SessionObservability(metrics: nil, tracer: nil) == nil)
        #expect(SessionObservability(metrics: SessionMetrics(factory: TestMetrics()), tracer: NoOpTracer())?.tracer == nil)
        #expect(SessionObservability(metrics: SessionMetrics(factory: NOOPMetricsHandler.instance), tracer: NoOpTracer())?.metrics == nil)
    }

    @Test func aSessionSetToTheUnbootstrappedBackendsKeepsThemButObservesNothing() {
        let manager = SessionManager(transport: NIOTransport.shared)
        manager.metrics = SessionMetrics(factory: NOOPMetricsHandler.instance)
        manager.tracer = NoOpTracer()
        #expect(manager.metrics?.factory is NOOPMetricsHandler)
        #expect(manager.tracer is NoOpTracer)
        #expect(manager.settings.withLockedValue { $0.features.observability } == nil)
        manager.metrics = SessionMetrics(factory: TestMetrics())
        #expect(manager.settings.withLockedValue { $0.features.observability?.metrics } != nil)
        manager.metrics = nil
        manager.tracer = nil
        #expect(manager.metrics == nil && manager.tracer == nil)
    }
}
