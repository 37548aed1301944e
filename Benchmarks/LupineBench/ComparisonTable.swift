import Foundation

/// Prints the network comparisons: p50 at concurrency 1, req/s at 64, the CPU and context
/// switches per request behind them, and the ratios issue 12 sets bars for (issue 26's, for
/// HTTP/2, are ``HTTP2Comparison``'s).
enum ComparisonTable {
    typealias Samples = [NetworkComparison.Row: [String: [NetworkComparison.Sample]]]

    static func print(samples: Samples, columns: [String], rows: [NetworkComparison.Row]) {
        Self.printSamples(samples, columns: columns, rows: rows)
        let single = NetworkComparison.Row(concurrency: 1, connections: nil)
        let loaded = NetworkComparison.Row(concurrency: 64, connections: nil)
        let keeps = Self.median(samples, loaded, "Lupine session", \.requestsPerSecond) / Self.median(samples, loaded, "Lupine transport", \.requestsPerSecond)
        let overPeer = Self.median(samples, loaded, "Lupine session", \.requestsPerSecond) / Self.median(samples, loaded, "AHC async", \.requestsPerSecond)
        let transportP50 = samples[single]?["Lupine transport"] ?? []
        let sessionP50 = samples[single]?["Lupine session"] ?? []
        let added = Self.medianOf(zip(transportP50, sessionP50).map { $1.p50Microseconds - $0.p50Microseconds })
        let overWrk = Self.median(samples, single, "Lupine transport", \.p50Microseconds) / Self.median(samples, single, "wrk", \.p50Microseconds)
        Swift.print("")
        Self.bar(String(format: "c=64: the session keeps %.0f %% of the transport's req/s", keeps * 100), "bar ≥ 90 %", keeps >= 0.9)
        Self.bar(String(format: "c=64, default pools: the session = %.2f× AsyncHTTPClient async", overPeer), "bar ≥ 1.5×", overPeer >= 1.5)
        Self.bar(String(format: "c=1: the session adds %.1f µs to the transport's p50 (median of the rounds' differences)", added), "bar ≤ 5 µs", added <= 5)
        Self.bar(String(format: "c=1: the transport's p50 = %.2f× wrk's", overWrk), "bar ≤ 1.6×", overWrk <= 1.6)
    }

    /// The table alone: p50 at concurrency 1, req/s above it, and CPU and context switches per request.
    static func printSamples(_ samples: Samples, columns: [String], rows: [NetworkComparison.Row]) {
        Swift.print(Self.line(["", "what"] + columns))
        for row in rows {
            let label = "c=\(row.concurrency)" + (row.connections.map { ", \($0) conns" } ?? ", default pools")
            let measure: (NetworkComparison.Sample) -> Double? = row.concurrency == 1 ? { $0.p50Microseconds } : { $0.requestsPerSecond }
            Swift.print(Self.line([label, row.concurrency == 1 ? "p50 µs" : "req/s"] + columns.map { Self.cell(samples, row, $0, measure) }))
            Swift.print(Self.line(["", "CPU µs/req"] + columns.map { Self.cell(samples, row, $0) { $0.cpuMicroseconds } }))
            Swift.print(Self.line(["", "switches/req"] + columns.map { Self.cell(samples, row, $0, decimals: 2) { $0.switches } }))
        }
    }

    static func bar(_ text: String, _ bar: String, _ met: Bool) {
        Swift.print("\(text) (\(bar): \(met ? "met" : "NOT met"))")
    }

    private static func cell(
        _ samples: Samples,
        _ row: NetworkComparison.Row,
        _ column: String,
        decimals: Int = 0,
        _ value: (NetworkComparison.Sample) -> Double?
    ) -> String {
        let values = (samples[row]?[column] ?? []).compactMap(value).filter { !$0.isNaN }
        guard !values.isEmpty else { return "–" }
        return String(format: "%.\(decimals)f", Self.medianOf(values))
    }

    static func median(_ samples: Samples, _ row: NetworkComparison.Row, _ column: String, _ value: KeyPath<NetworkComparison.Sample, Double>) -> Double {
        Self.medianOf((samples[row]?[column] ?? []).map { $0[keyPath: value] })
    }

    private static func medianOf(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    private static func line(_ cells: [String]) -> String {
        let widths = [22, 14] + Array(repeating: 18, count: max(0, cells.count - 2))
        return zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined()
    }
}
