import Tracing

/// Metrics and tracing, off by default. Each session has its own, so two sessions (or two
/// tests running at once) never share a backend; ``SessionMetrics/bootstrapped`` and
/// `InstrumentationSystem.tracer` are the process's bootstrapped ones. With neither set a task
/// does no observing at all, and so it is when what is set records nothing (swift-metrics' NOOP
/// factory, the no-op tracer: what the process's are before anything is bootstrapped). Tasks take
/// the values set when they are created.
extension SessionManager {
    /// Where the session's metrics go (requests started and completed, errors, durations, time
    /// to first byte, bytes, retries, cache hits, connection pools: see ``SessionMetrics``);
    /// `nil`, the default, for none.
    public var metrics: SessionMetrics? {
        get { self.settings.withLockedValue { $0.metrics } }
        set {
            self.settings.withLockedValue { settings in
                settings.metrics = newValue
                settings.features.observability = SessionObservability(metrics: newValue, tracer: settings.tracer)
            }
        }
    }

    /// Makes a client span for each task, after OpenTelemetry's HTTP client conventions, child
    /// of the span current where the task was resumed, and writes its context into each attempt's
    /// header fields with the tracer's injector (`traceparent` for an OpenTelemetry tracer);
    /// retries and redirects are events of the span. `nil`, the default, for none.
    public var tracer: (any Tracer)? {
        get { self.settings.withLockedValue { $0.tracer } }
        set {
            self.settings.withLockedValue { settings in
                settings.tracer = newValue
                settings.features.observability = SessionObservability(metrics: settings.metrics, tracer: newValue)
            }
        }
    }
}
