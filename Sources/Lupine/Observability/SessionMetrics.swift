import CoreMetrics

/// Where a session's metrics go (``SessionManager/metrics``): a swift-metrics `MetricsFactory`
/// of the session's own, so two sessions (or two tests) never share one, or the process's
/// bootstrapped one (``bootstrapped``).
///
/// The metrics, each label `labelPrefix` and `_` before the ``Name``'s raw value:
///
/// | metric | kind | dimensions |
/// | --- | --- | --- |
/// | `requests_started` | counter | `method` |
/// | `requests_completed` | counter | `method`, `status_class` (`2xx`…, `none` without a response) |
/// | `request_errors` | counter | `kind` (the error's case, as `connectionFailed`) |
/// | `request_duration` | timer | `method`, `status_class`: from the task's start to its outcome |
/// | `time_to_first_byte` | timer | `method`: from the final request's head sent to the first byte back |
/// | `bytes_sent`, `bytes_received` | counter | none: every request of the task, heads included |
/// | `retries` | counter | `method` |
/// | `cache_hits` | counter | `cache_status` (`hit`, `revalidated`, `stale`) |
/// | `pool_open_connections`, `pool_idle_connections` | gauge | `pool` (`http://host:port`), read as each task ends |
///
/// A task that gets a `404` completes with `status_class` `4xx` and no error: errors count tasks
/// that failed without a final response to deliver, or whose response could not be read.
public struct SessionMetrics: Sendable {
    /// The metrics' names, each after the session's ``labelPrefix``.
    public enum Name: String, Sendable, CaseIterable {
        /// Tasks that started running.
        case requestsStarted = "requests_started"
        /// Tasks that ran to an outcome, by method and status class.
        case requestsCompleted = "requests_completed"
        /// Tasks that failed, by the kind of error.
        case requestErrors = "request_errors"
        /// How long tasks ran.
        case requestDuration = "request_duration"
        /// How long the final request's response took to start arriving.
        case timeToFirstByte = "time_to_first_byte"
        /// Bytes written to connections.
        case bytesSent = "bytes_sent"
        /// Bytes read from connections.
        case bytesReceived = "bytes_received"
        /// Attempts sent again because a retrier decided so.
        case retries
        /// Responses delivered from the session's cache.
        case cacheHits = "cache_hits"
        /// Connections open in a pool of the session's `NIOTransport`.
        case poolOpenConnections = "pool_open_connections"
        /// Connections parked idle in a pool of the session's `NIOTransport`.
        case poolIdleConnections = "pool_idle_connections"
    }

    /// Makes the session's counters, timers and gauges.
    public let factory: any MetricsFactory
    /// What every label starts with (default `lupine`).
    public let labelPrefix: String

    /// Metrics made by `factory`, labelled `labelPrefix_name`.
    public init(factory: any MetricsFactory, labelPrefix: String = "lupine") {
        self.factory = factory
        self.labelPrefix = labelPrefix
    }

    /// The factory bootstrapped for the process (`MetricsSystem.bootstrap(_:)`), as it is now:
    /// bootstrap first, then set this.
    public static var bootstrapped: SessionMetrics {
        SessionMetrics(factory: MetricsSystem.factory)
    }

    /// The label the metric `name` is recorded under.
    public func label(_ name: Name) -> String {
        self.labelPrefix.isEmpty ? name.rawValue : "\(self.labelPrefix)_\(name.rawValue)"
    }
}
