/// Throughput, latency percentiles and peak memory of one client at one concurrency.
struct BenchmarkResult {
    let client: String
    let concurrency: Int
    let requests: Int
    let seconds: Double
    /// Per-request latencies in nanoseconds, sorted.
    let latencies: [UInt64]
    let peakRSSBytes: Int
    /// The process's CPU time and context switches over the run (nil for merged rounds).
    let usage: ResourceUsage?

    init(client: String, concurrency: Int, seconds: Double, latencies: [UInt64], peakRSSBytes: Int, usage: ResourceUsage? = nil) {
        self.client = client
        self.concurrency = concurrency
        self.requests = latencies.count
        self.seconds = seconds
        self.latencies = latencies.sorted()
        self.peakRSSBytes = peakRSSBytes
        self.usage = usage
    }

    /// The rounds of one client taken together: all latencies, the summed time, the highest peak.
    init(merging rounds: [BenchmarkResult]) {
        self.init(
            client: rounds.first?.client ?? "",
            concurrency: rounds.first?.concurrency ?? 0,
            seconds: rounds.reduce(0) { $0 + $1.seconds },
            latencies: rounds.flatMap(\.latencies),
            peakRSSBytes: rounds.map(\.peakRSSBytes).max() ?? 0
        )
    }

    var requestsPerSecond: Double { Double(self.requests) / self.seconds }

    /// The latency at `fraction` (0...1) of the sorted samples, in microseconds.
    func percentileMicroseconds(_ fraction: Double) -> Double {
        guard !self.latencies.isEmpty else { return 0 }
        let index = min(self.latencies.count - 1, Int((Double(self.latencies.count) * fraction).rounded(.down)))
        return Double(self.latencies[index]) / 1000
    }
}
