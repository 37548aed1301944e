import NIOConcurrencyHelpers
import CoreMetrics
import Tracing

/// A session's metrics and tracer, together: `nil` in ``SessionFeatures`` unless one is set,
/// so a task of a session with neither makes no ``RequestObservation``.
final class SessionObservability: Sendable {
    let metrics: SessionMetrics?
    let tracer: (any Tracer)?
    /// The pools whose gauges were last set, so a pool that has gone is set to zero once.
    private let reportedPools = NIOLockedValueBox<Set<String>>([])

    /// Both, or `nil` when neither would record anything: each is left out when it is not set
    /// or is the no-op one (swift-metrics' `NOOPMetricsHandler`, swift-distributed-tracing's
    /// `NoOpTracer`), as the process's are until a backend is bootstrapped.
    init?(metrics: SessionMetrics?, tracer: (any Tracer)?) {
        let metrics = metrics.flatMap { $0.factory is NOOPMetricsHandler ? nil : $0 }
        let tracer = tracer.flatMap { $0 is NoOpTracer ? nil : $0 }
        guard metrics != nil || tracer != nil else { return nil }
        self.metrics = metrics
        self.tracer = tracer
    }

    /// What observes one task.
    func observation() -> RequestObservation {
        RequestObservation(session: self)
    }

    /// Sets the pool gauges from what `transport`'s pools hold now; only a `NIOTransport`
    /// tells. Under the lock, so two tasks ending at once cannot set a gauge out of order.
    func recordPools(of transport: any Transport) {
        guard let metrics = self.metrics, let transport = transport as? NIOTransport else { return }
        self.reportedPools.withLockedValue { reported in
            let pools = transport.connectionPoolStatistics()
            var present: Set<String> = []
            for pool in pools {
                present.insert(pool.pool)
                metrics.record(pool)
            }
            for gone in reported.subtracting(present) {
                metrics.record(ConnectionPoolStatistics(pool: gone, open: 0, idle: 0))
            }
            reported = present
        }
    }
}
