import AsyncHTTPClient
import Foundation
import Lupine
import NIOCore
import NIOPosix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session layer against the bare transport and the peers, over the network: one small
/// JSON GET against a server in a separate process pinned to its own core, every client in
/// alternating rounds, at concurrency 1 (p50 latency) and 64 (throughput).
enum NetworkComparison {
    /// One client at one concurrency and pool size.
    struct Sample {
        let client: String
        let requestsPerSecond: Double
        let p50Microseconds: Double
        /// CPU µs and context switches per request in this process (nil for wrk, a process of its own).
        let cpuMicroseconds: Double?
        let switches: Double?

        init(_ result: BenchmarkResult) {
            self.client = result.client
            self.requestsPerSecond = result.requestsPerSecond
            self.p50Microseconds = result.percentileMicroseconds(0.5)
            self.cpuMicroseconds = result.usage.map { $0.cpuSeconds * 1e6 / Double(max(1, result.requests)) }
            self.switches = result.usage.map { Double($0.contextSwitches) / Double(max(1, result.requests)) }
        }

        init(client: String, requestsPerSecond: Double, p50Microseconds: Double, cpuMicroseconds: Double? = nil) {
            self.client = client
            self.requestsPerSecond = requestsPerSecond
            self.p50Microseconds = p50Microseconds
            self.cpuMicroseconds = cpuMicroseconds
            self.switches = nil
        }
    }

    /// The table's rows: concurrency and connections per host (nil: each client's default pool).
    struct Row: Hashable {
        let concurrency: Int
        let connections: Int?
    }

    static let columns = ["Lupine transport", "Lupine session", "AHC async", "AHC futures", "URLSession", "wrk"]
    static let rows = [Row(concurrency: 1, connections: nil), Row(concurrency: 64, connections: nil), Row(concurrency: 64, connections: 64)]

    static func run(server: PinnedServer, rounds: Int, requests: Int) async throws {
        let url = server.documentURL
        let pinned = PinnedServer.pinClient()
        print("\nsession layer over the network: GET \(url) (JSON) from \(server.name) in a separate process")
        print(
            pinned
                ? "server pinned to core \(PinnedServer.serverCore), this process to core \(PinnedServer.clientCore); \(rounds) alternating rounds, medians"
                : "NOT pinned (one core or no taskset): figures are indicative only; \(rounds) alternating rounds, medians"
        )
        var samples: [Row: [String: [Sample]]] = [:]
        for _ in 0..<rounds {
            for row in Self.rows {
                let count = row.concurrency == 1 ? requests / 8 : requests
                for column in Self.columns where Self.measures(column, row) {
                    let sample = try await Self.measure(column, row: row, url: url, requests: column == "URLSession" ? count / 4 : count)
                    samples[row, default: [:]][column, default: []].append(sample)
                }
            }
        }
        ComparisonTable.print(samples: samples, columns: Self.columns, rows: Self.rows)
    }

    /// The 64-connection row is the two transports' (and the session's on the same pool).
    private static func measures(_ column: String, _ row: Row) -> Bool {
        row.connections == nil || ["Lupine transport", "Lupine session", "AHC async"].contains(column)
    }

    private static func measure(_ column: String, row: Row, url: String, requests: Int) async throws -> Sample {
        let concurrency = row.concurrency
        switch column {
        case "Lupine transport":
            let configuration = row.connections.map { TransportConfiguration(maximumConnectionsPerHost: $0) } ?? TransportConfiguration()
            return Sample(try await LupineBench.lupine(url: url, concurrency: concurrency, requests: requests, configuration: configuration))
        case "Lupine session":
            let configuration = row.connections.map { TransportConfiguration(maximumConnectionsPerHost: $0) } ?? TransportConfiguration()
            return Sample(try await LupineBench.sessionManager(url: url, concurrency: concurrency, requests: requests, configuration: configuration))
        case "AHC async":
            return Sample(try await LupineBench.asyncHTTPClientAsync(url: url, concurrency: concurrency, requests: requests, connections: row.connections))
        case "AHC futures":
            return Sample(try await LupineBench.asyncHTTPClientFutures(url: url, concurrency: concurrency, requests: requests, connections: row.connections))
        case "URLSession":
            return Sample(try await Self.urlSession(url: url, concurrency: concurrency, requests: requests))
        default:
            return try Wrk.run(url: url, concurrency: concurrency, seconds: 2)
        }
    }

    static func urlSession(url: String, concurrency: Int, requests: Int) async throws -> BenchmarkResult {
        guard let target = URL(string: url) else { throw BenchError.invalidURL(url) }
        let session = URLSession(configuration: .default)
        defer { session.finishTasksAndInvalidate() }
        return try await LoadRunner.run(client: "URLSession", concurrency: concurrency, requests: requests, warmUp: 50) {
            _ = try await session.data(from: target)
        }
    }
}
