import NIOConcurrencyHelpers

/// The mutable, shared record of one request's ``TransportMetrics``, written from the event loop
/// and from the resolver's thread, read by the caller.
final class MetricsRecorder: Sendable {
    private let metrics: NIOLockedValueBox<TransportMetrics>

    init() {
        self.metrics = NIOLockedValueBox(TransportMetrics(fetchStart: .now))
    }

    var snapshot: TransportMetrics { self.metrics.withLockedValue { $0 } }

    func record(_ update: (inout TransportMetrics) -> Void) {
        self.metrics.withLockedValue { update(&$0) }
    }

    /// Sets the instant of `phase` to now unless it is already set.
    func mark(_ phase: TransportMetrics.Phase) {
        let now = ContinuousClock.now
        self.metrics.withLockedValue { $0.mark(phase, at: now) }
    }
}
