import AsyncHTTPClient
import Foundation
import Lupine
import LupineTestServer
import NIOCore
import NIOHTTP1
import NIOPosix

/// `lupine-bench`: small-GET throughput and latency of Lupine's transport against
/// AsyncHTTPClient's two APIs, the session layer's cost over the transport, and 1 GiB transfers
/// to and from files against curl, on the same server in the same run.
///
/// Usage: `swift run -c release lupine-bench [--url http://HOST:PORT] [--requests N]
/// [--transfer-bytes N] [--only session|transport|layer|transfers]`.
/// Without `--url` the test server runs in this process and shares its two cores with the clients.
@main
struct LupineBench {
    static let connectionsPerHost = 6

    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.contains("--serve") {
            try await ServerProcess.serve()
        }
        let externalURL = Self.value(of: "--url", in: arguments).flatMap(URL.init(string:))
        let requestsAtFullConcurrency = Self.value(of: "--requests", in: arguments).flatMap(Int.init) ?? 20_000

        let server: LupineTestServer? = externalURL == nil ? try await LupineTestServer.start() : nil
        guard let base = externalURL ?? server?.baseURL else { return }
        let url = base.absoluteString + "/bytes/100"
        let arrangement =
            server == nil
            ? "server in another process at \(base.absoluteString)"
            : "in-process LupineTestServer at \(base.absoluteString), sharing the machine's cores with the clients"
        print("lupine-bench: GET \(url) (100-byte body), \(Self.connectionsPerHost) connections per host for every client")
        print("arrangement: \(arrangement); \(ProcessInfo.processInfo.activeProcessorCount) cores")

        let transferSize = Self.value(of: "--transfer-bytes", in: arguments).flatMap(Int.init) ?? (1 << 30)
        if Self.value(of: "--only", in: arguments) == "transfers" {
            try await Self.transfers(external: externalURL, size: transferSize)
            await server?.stop()
            return
        }
        if Self.value(of: "--only", in: arguments) == "layer" {
            try await Self.sessionLayer(url: base.absoluteString + "/get?x=1", requests: requestsAtFullConcurrency)
            await server?.stop()
            return
        }
        if let path = Self.value(of: "--only", in: arguments) {
            // One path alone, for a profiler: `perf record lupine-bench --only session`.
            let jsonURL = base.absoluteString + "/get?x=1"
            let result =
                path == "session"
                ? try await Self.sessionManager(url: jsonURL, concurrency: 1, requests: requestsAtFullConcurrency)
                : try await Self.lupine(url: jsonURL, concurrency: 1, requests: requestsAtFullConcurrency)
            ResultTable.print([result])
            await server?.stop()
            return
        }
        var results: [BenchmarkResult] = []
        for concurrency in [1, 64] {
            let requests = concurrency == 1 ? requestsAtFullConcurrency / 4 : requestsAtFullConcurrency
            results.append(try await Self.lupine(url: url, concurrency: concurrency, requests: requests))
            results.append(try await Self.asyncHTTPClientFutures(url: url, concurrency: concurrency, requests: requests))
            results.append(try await Self.asyncHTTPClientAsync(url: url, concurrency: concurrency, requests: requests))
        }
        ResultTable.print(results)

        try await Self.sessionLayer(url: base.absoluteString + "/get?x=1", requests: requestsAtFullConcurrency)
        try await Self.transfers(external: externalURL, size: transferSize)
        await server?.stop()
    }

    /// What the session layer adds to a small JSON GET: the whole `HTTPSessionManager` path
    /// (serialize, transport, JSON response serializer) against the bare transport, over the
    /// network and then on a transport that replays the response from memory.
    static func sessionLayer(url: String, requests: Int) async throws {
        let rounds = 10
        let perRound = requests / 4 / rounds
        print("\nsession layer: GET \(url) (httpbin JSON), concurrency 1, both on Lupine's transport, \(rounds) alternating rounds")
        var transportRounds: [BenchmarkResult] = []
        var sessionRounds: [BenchmarkResult] = []
        for _ in 0..<rounds {
            transportRounds.append(try await Self.lupine(url: url, concurrency: 1, requests: perRound))
            sessionRounds.append(try await Self.sessionManager(url: url, concurrency: 1, requests: perRound))
        }
        ResultTable.printLayerCost(transportRounds: transportRounds, sessionRounds: sessionRounds)
        try await Self.layerCost(url: url, requests: requests)
    }

    /// The session layer's own cost: the same two paths on a transport that replays the server's
    /// recorded response from memory, so the network's variance is out of the difference.
    static func layerCost(url: String, requests: Int) async throws {
        guard let target = URL(string: url) else { throw BenchError.invalidURL(url) }
        let headers = HTTPRequestSerializer().httpRequestHeaders
        let recorded = try await RecordedTransport.record(target, headers: headers)
        let rounds = 10
        print("\nsession layer alone: GET \(url) replayed from memory (\(recorded.body.readableBytes)-byte body), \(rounds) alternating rounds")
        let manager = HTTPSessionManager(transport: recorded)
        // The same session with a retry policy that never has to retry: the retry point's cost.
        let retrying = HTTPSessionManager(transport: recorded)
        retrying.interceptor = RetryPolicy()
        let serializer = JSONResponseSerializer()
        var transportRounds: [BenchmarkResult] = []
        var sessionRounds: [BenchmarkResult] = []
        var retryRounds: [BenchmarkResult] = []
        for _ in 0..<rounds {
            transportRounds.append(
                try await LoadRunner.run(client: "recorded transport", concurrency: 1, requests: requests / rounds, warmUp: 200) {
                    let response = try await recorded.execute(TransportRequest(url: target, headers: headers, cancellation: TransportCancellation()))
                    for try await _ in response.body {}
                }
            )
            sessionRounds.append(
                try await LoadRunner.run(client: "HTTPSessionManager + JSON", concurrency: 1, requests: requests / rounds, warmUp: 200) {
                    _ = try await manager.request(.GET, url, serializer: serializer)
                }
            )
            retryRounds.append(
                try await LoadRunner.run(client: "... + RetryPolicy", concurrency: 1, requests: requests / rounds, warmUp: 200) {
                    _ = try await retrying.request(.GET, url, serializer: serializer)
                }
            )
        }
        ResultTable.printLayerCost(transportRounds: transportRounds, sessionRounds: sessionRounds)
        ResultTable.printLayerCost(transportRounds: sessionRounds, sessionRounds: retryRounds, what: "a RetryPolicy with nothing to retry")
    }

    /// The large-transfer rows, against `external` or else a server in a child process.
    static func transfers(external: URL?, size: Int) async throws {
        let child = external == nil ? try ServerProcess() : nil
        defer { child?.stop() }
        guard let base = external ?? child?.baseURL else { return }
        print("\nlarge transfers: server at \(base.absoluteString) in \(external == nil ? "a child" : "another") process")
        TransferBenchmark.print(try await TransferBenchmark.run(base: base, size: size))
    }

    static func lupine(url: String, concurrency: Int, requests: Int) async throws -> BenchmarkResult {
        let transport = NIOTransport(
            configuration: .init(maximumConnectionsPerHost: Self.connectionsPerHost, decompressesResponses: false)
        )
        guard let target = URL(string: url) else { throw BenchError.invalidURL(url) }
        // The header fields a session sends too, so both paths carry the same request.
        let headers = HTTPRequestSerializer().httpRequestHeaders
        let result = try await LoadRunner.run(
            client: "Lupine NIOTransport",
            concurrency: concurrency,
            requests: requests,
            warmUp: 200
        ) {
            let response = try await transport.execute(TransportRequest(url: target, headers: headers, cancellation: TransportCancellation()))
            for try await _ in response.body {}
        }
        await transport.shutdown()
        return result
    }

    static func sessionManager(url: String, concurrency: Int, requests: Int) async throws -> BenchmarkResult {
        let manager = HTTPSessionManager(
            configuration: .init(maximumConnectionsPerHost: Self.connectionsPerHost, decompressesResponses: false)
        )
        let serializer = JSONResponseSerializer()
        let result = try await LoadRunner.run(
            client: "HTTPSessionManager + JSON",
            concurrency: concurrency,
            requests: requests,
            warmUp: 200
        ) {
            _ = try await manager.request(.GET, url, serializer: serializer)
        }
        manager.invalidateSession(cancelingTasks: false)
        return result
    }

    static func asyncHTTPClientFutures(url: String, concurrency: Int, requests: Int) async throws -> BenchmarkResult {
        let client = Self.makeAsyncHTTPClient()
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        let result = try await LoadRunner.runFutures(
            client: "AsyncHTTPClient futures",
            concurrency: concurrency,
            requests: requests,
            warmUp: 200,
            eventLoop: eventLoop
        ) {
            client.get(url: url).map { _ in }
        }
        try await client.shutdown()
        return result
    }

    static func asyncHTTPClientAsync(url: String, concurrency: Int, requests: Int) async throws -> BenchmarkResult {
        let client = Self.makeAsyncHTTPClient()
        let result = try await LoadRunner.run(
            client: "AsyncHTTPClient async",
            concurrency: concurrency,
            requests: requests,
            warmUp: 200
        ) {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            for try await _ in response.body {}
        }
        try await client.shutdown()
        return result
    }

    static func makeAsyncHTTPClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.connectionsPerHost
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    static func value(of option: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
}

/// The benchmark could not start or run.
enum BenchError: Error {
    case invalidURL(String)
    case curlFailed(Int32)
    case incompleteTransfer(Int)
}
