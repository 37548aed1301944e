import Foundation

/// Prints load-runner results as a table, and two paths' difference round by round.
enum ResultTable {
    static func print(_ results: [BenchmarkResult]) {
        Swift.print("")
        Swift.print(Self.header)
        Swift.print(String(repeating: "-", count: 96))
        for result in results {
            Swift.print(Self.row(for: result))
        }
    }

    /// Prints the bare transport and the session path side by side, round by round, with the
    /// latency the session adds: the median of the rounds' differences, which a slow phase of a
    /// shared machine moves less than it moves either side.
    /// `what` names what the second path adds.
    static func printLayerCost(transportRounds: [BenchmarkResult], sessionRounds: [BenchmarkResult], what: String) {
        let transport = BenchmarkResult(merging: transportRounds)
        let session = BenchmarkResult(merging: sessionRounds)
        Swift.print(Self.header)
        for result in [transport, session] {
            Swift.print(Self.row(for: result))
        }
        let added = zip(transportRounds, sessionRounds)
            .map { $1.percentileMicroseconds(0.5) - $0.percentileMicroseconds(0.5) }
        let sorted = added.sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        let addedMean = 1_000_000 / session.requestsPerSecond - 1_000_000 / transport.requestsPerSecond
        Swift.print("added at the median, round by round: " + added.map { String(format: "%.1f", $0) }.joined(separator: ", ") + " µs")
        Swift.print(
            String(
                format: "%@ adds %.1f µs per request (median of the rounds; lowest %.1f), %.1f µs on average",
                what,
                median,
                sorted.first ?? 0,
                addedMean
            )
        )
    }

    private static let header = Self.row(["client", "conc", "requests", "req/s", "p50 µs", "p99 µs", "peak RSS MiB"])

    private static func row(for result: BenchmarkResult) -> String {
        Self.row([
            result.client,
            "\(result.concurrency)",
            "\(result.requests)",
            String(format: "%.0f", result.requestsPerSecond),
            String(format: "%.0f", result.percentileMicroseconds(0.5)),
            String(format: "%.0f", result.percentileMicroseconds(0.99)),
            String(format: "%.1f", Double(result.peakRSSBytes) / 1_048_576),
        ])
    }

    private static func row(_ cells: [String]) -> String {
        let widths = [26, 6, 10, 10, 10, 10, 14]
        return zip(cells, widths).map { cell, width in
            cell.count >= width ? cell + " " : cell + String(repeating: " ", count: width - cell.count)
        }.joined()
    }
}
