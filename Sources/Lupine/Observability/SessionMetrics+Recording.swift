import Metrics

/// How a task's events become the metrics ``SessionMetrics`` lists. Each metric is looked up in
/// the factory when recorded: a backend keeps one per label and dimensions.
extension SessionMetrics {
    func recordStart(method: String) {
        Counter(label: self.label(.requestsStarted), dimensions: [("method", method)], factory: self.factory).increment()
    }

    func recordRetry(method: String) {
        Counter(label: self.label(.retries), dimensions: [("method", method)], factory: self.factory).increment()
    }

    /// Records a task's outcome: its completion, error, duration, first byte, bytes and cache status.
    func recordCompletion(of outcome: ExecutionOutcome, method: String, duration: Duration, cacheStatus: String?) {
        let statusClass = outcome.head.map { "\($0.statusCode / 100)xx" } ?? "none"
        let dimensions = [("method", method), ("status_class", statusClass)]
        Counter(label: self.label(.requestsCompleted), dimensions: dimensions, factory: self.factory).increment()
        Timer(label: self.label(.requestDuration), dimensions: dimensions, factory: self.factory).record(duration: duration)
        if let error = outcome.error {
            Counter(label: self.label(.requestErrors), dimensions: [("kind", error.observedKind)], factory: self.factory).increment()
        }
        if let firstByte = outcome.metrics?.timeToFirstByte {
            Timer(label: self.label(.timeToFirstByte), dimensions: [("method", method)], factory: self.factory).record(duration: firstByte)
        }
        var sent = 0
        var received = 0
        for metrics in outcome.earlierMetrics {
            sent += metrics.bytesSent
            received += metrics.bytesReceived
        }
        if let metrics = outcome.metrics {
            sent += metrics.bytesSent
            received += metrics.bytesReceived
        }
        if sent > 0 {
            Counter(label: self.label(.bytesSent), factory: self.factory).increment(by: sent)
        }
        if received > 0 {
            Counter(label: self.label(.bytesReceived), factory: self.factory).increment(by: received)
        }
        if let cacheStatus, cacheStatus != CacheStatus.miss.rawValue {
            Counter(label: self.label(.cacheHits), dimensions: [("cache_status", cacheStatus)], factory: self.factory).increment()
        }
    }

    /// Sets the gauges of one connection pool.
    func record(_ pool: ConnectionPoolStatistics) {
        let dimensions = [("pool", pool.pool)]
        Gauge(label: self.label(.poolOpenConnections), dimensions: dimensions, factory: self.factory).record(pool.open)
        Gauge(label: self.label(.poolIdleConnections), dimensions: dimensions, factory: self.factory).record(pool.idle)
    }
}
