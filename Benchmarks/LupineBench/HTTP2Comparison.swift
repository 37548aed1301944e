import AsyncHTTPClient
import Foundation
import Lupine
import NIOCore
import NIOSSL

/// HTTP/2 over the network: the 300-byte JSON GET against nginx over TLS (h2 and http/1.1 by
/// ALPN on one port, one worker pinned to its own core), in alternating rounds: Lupine's
/// transport and session over h2 and over HTTP/1.1, AsyncHTTPClient's async API over h2, and
/// h2load (one connection, as many streams as the concurrency) as the limit; then a large
/// download over h2 and how far it raises this process's RSS.
enum HTTP2Comparison {
    static let columns = ["transport h2", "session h2", "transport h1", "session h1", "AHC async h2", "h2load"]
    static let rows = [NetworkComparison.Row(concurrency: 1, connections: nil), NetworkComparison.Row(concurrency: 64, connections: nil)]
    /// Every certificate is taken: the benchmark measures the protocol, and nginx's is made at start.
    static let trusting = ServerTrustEvaluator { _ in .trusted }

    static func run(rounds: Int, requests: Int, downloadSize: Int) async throws {
        let server = try PinnedServer(tls: true, largeFileSize: downloadSize)
        defer { server.stop() }
        let url = server.baseURL.absoluteString + "/get"
        let pinned = PinnedServer.pinClient()
        print("\nHTTP/2: GET \(url) (JSON) from \(server.name) in a separate process")
        print("columns: Lupine's transport and session over h2 and over HTTP/1.1 on the same port, AsyncHTTPClient's async API over h2, h2load")
        print(pinned ? "server on core \(PinnedServer.serverCore), this process on core \(PinnedServer.clientCore); \(rounds) alternating rounds, medians" : "NOT pinned: indicative only")
        var samples: ComparisonTable.Samples = [:]
        for _ in 0..<rounds {
            for row in Self.rows {
                let count = row.concurrency == 1 ? requests / 8 : requests
                for column in Self.columns {
                    let sample = try await Self.measure(column, url: url, concurrency: row.concurrency, requests: count)
                    samples[row, default: [:]][column, default: []].append(sample)
                }
            }
        }
        ComparisonTable.printSamples(samples, columns: Self.columns, rows: Self.rows)
        let loaded = Self.rows[1]
        let transportOverPeer = ComparisonTable.median(samples, loaded, "transport h2", \.requestsPerSecond) / ComparisonTable.median(samples, loaded, "AHC async h2", \.requestsPerSecond)
        let sessionOverPeer = ComparisonTable.median(samples, loaded, "session h2", \.requestsPerSecond) / ComparisonTable.median(samples, loaded, "AHC async h2", \.requestsPerSecond)
        let sessionOverH1 = ComparisonTable.median(samples, loaded, "session h2", \.requestsPerSecond) / ComparisonTable.median(samples, loaded, "session h1", \.requestsPerSecond)
        print("")
        ComparisonTable.bar(String(format: "c=64: the transport over h2 = %.2f× AsyncHTTPClient async over h2", transportOverPeer), "bar ≥ 1.5×", transportOverPeer >= 1.5)
        ComparisonTable.bar(String(format: "c=64: the session over h2 = %.2f× AsyncHTTPClient async over h2", sessionOverPeer), "bar ≥ 1.0×", sessionOverPeer >= 1.0)
        ComparisonTable.bar(String(format: "c=64: the session over h2 = %.2f× itself over HTTP/1.1", sessionOverH1), "bar ≥ 1.0×", sessionOverH1 >= 1.0)
        try await Self.download(from: server.baseURL.absoluteString, size: downloadSize)
    }

    private static func measure(_ column: String, url: String, concurrency: Int, requests: Int) async throws -> NetworkComparison.Sample {
        let h2 = TransportConfiguration(serverTrustEvaluator: Self.trusting)
        let h1 = TransportConfiguration(serverTrustEvaluator: Self.trusting, httpVersion: .http1)
        switch column {
        case "transport h2":
            return NetworkComparison.Sample(try await LupineBench.lupine(url: url, concurrency: concurrency, requests: requests, configuration: h2))
        case "session h2":
            return NetworkComparison.Sample(try await LupineBench.sessionManager(url: url, concurrency: concurrency, requests: requests, configuration: h2))
        case "transport h1":
            return NetworkComparison.Sample(try await LupineBench.lupine(url: url, concurrency: concurrency, requests: requests, configuration: h1))
        case "session h1":
            return NetworkComparison.Sample(try await LupineBench.sessionManager(url: url, concurrency: concurrency, requests: requests, configuration: h1))
        case "AHC async h2":
            return NetworkComparison.Sample(try await Self.asyncHTTPClient(url: url, concurrency: concurrency, requests: requests))
        default:
            return try Self.h2load(url: url, concurrency: concurrency, requests: requests)
        }
    }

    /// AsyncHTTPClient's async API, HTTP/2 by ALPN (its default), taking any certificate.
    private static func asyncHTTPClient(url: String, concurrency: Int, requests: Int) async throws -> BenchmarkResult {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        configuration.httpVersion = .automatic
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result = try await LoadRunner.run(client: "AsyncHTTPClient async h2", concurrency: concurrency, requests: requests, warmUp: 200) {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            for try await _ in response.body {}
        }
        try await client.shutdown()
        return result
    }

    /// h2load on the client's core: one connection carrying `concurrency` streams; its CPU is
    /// its own process's (`RUSAGE_CHILDREN`), its p50 the mean it reports.
    private static func h2load(url: String, concurrency: Int, requests: Int) throws -> NetworkComparison.Sample {
        guard let h2load = PinnedServer.executable(named: "h2load") else {
            return NetworkComparison.Sample(client: "h2load", requestsPerSecond: .nan, p50Microseconds: .nan)
        }
        let output = Pipe()
        let before = ResourceUsage.now(children: true)
        let arguments = ["-n", "\(requests)", "-c", "1", "-m", "\(concurrency)", url]
        let process = try PinnedServer.pinned(h2load, arguments, core: PinnedServer.clientCore, output: output)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let usage = ResourceUsage.now(children: true) - before
        // "finished in 1.23s, 16260.16 req/s, 6.31MB/s" and "time for request:  12us  3.4ms  190us ..."
        let perSecond = Self.number(in: text, after: "finished in", field: 1)
        let mean = Self.number(in: text, after: "time for request:", field: 2)
        return NetworkComparison.Sample(
            client: "h2load",
            requestsPerSecond: perSecond ?? .nan,
            p50Microseconds: mean ?? .nan,
            cpuMicroseconds: usage.cpuSeconds * 1e6 / Double(max(1, requests))
        )
    }

    /// The `field`th comma- or space-separated value after `label` on its line, in µs for a time.
    private static func number(in text: String, after label: String, field: Int) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return nil }
        let values = line.trimmingCharacters(in: .whitespaces).dropFirst(label.count)
            .split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        guard field < values.count else { return nil }
        let value = values[field]
        for (unit, scale) in [("us", 1.0), ("ms", 1e3), ("s", 1e6)] where value.hasSuffix(unit) {
            return Double(value.dropLast(unit.count)).map { $0 * scale }
        }
        return Double(value)
    }

    /// Streams `/large` over h2 through the transport, dropping the bytes, and says how far the
    /// peak RSS rose above the RSS before it (the connection made and used first).
    private static func download(from base: String, size: Int) async throws {
        guard let target = URL(string: base + "/large"), let document = URL(string: base + "/get") else { throw BenchError.invalidURL(base) }
        let transport = NIOTransport(configuration: TransportConfiguration(serverTrustEvaluator: Self.trusting))
        _ = try await transport.execute(TransportRequest(url: document, cancellation: TransportCancellation())).body.collect(upTo: 1 << 20)
        PeakMemory.reset()
        let before = PeakMemory.residentBytes()
        let started = ContinuousClock.now
        let response = try await transport.execute(TransportRequest(url: target, cancellation: TransportCancellation()))
        var received = 0
        for try await part in response.body {
            received += part.readableBytes
        }
        let seconds = (ContinuousClock.now - started).seconds
        let rise = PeakMemory.peakResidentBytes() - before
        await transport.shutdown()
        guard received == size else { throw BenchError.incompleteTransfer(received) }
        print(
            String(
                format: "\n%@ over h2 (%@): %.0f MiB/s, peak RSS %.1f MiB above the RSS before it (bar ≤ 4 MiB: %@)",
                "\(size >> 20) MiB download", response.metrics.networkProtocolName ?? "?", Double(size) / seconds / 1_048_576,
                Double(rise) / 1_048_576, rise <= 4 << 20 ? "met" : "NOT met"
            )
        )
    }
}
