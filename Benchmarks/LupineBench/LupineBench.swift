import AsyncHTTPClient
import Foundation
import Lupine
import LupineTestServer
import NIOCore
import NIOHTTP1
import NIOPosix

/// `lupine-bench`: the session layer against Lupine's bare transport, AsyncHTTPClient's two APIs,
/// URLSession and wrk over the network; HTTP/2 against nginx beside AsyncHTTPClient and h2load;
/// the session layer's cost on a transport replayed from memory; and 1 GiB transfers to and from
/// files against curl.
///
/// Usage: `swift run -c release lupine-bench [--only session|http2|layer|cache|observability|images|transfers] [--rounds N]
/// [--requests N] [--transfer-bytes N]`, or `--profile transport|session|transport-h2|session-h2 [--concurrency N]
/// [--url BASE]` to run one path alone under a profiler (`perf record -g lupine-bench --profile session`).
/// Servers run in processes of their own, pinned to the last core while the clients keep the first.
@main
struct LupineBench {
    static let usage = """
        usage: lupine-bench [--only session|http2|layer|cache|observability|images|transfers|soak] [--rounds N]
                            [--requests N] [--transfer-bytes N] [--nio-executor]
               lupine-bench --profile transport|session|transport-h2|session-h2 [--concurrency N] [--requests N] [--url BASE]
        """

    static func main() async throws {
        let arguments = CommandLine.arguments
        // Anything it does not know is refused before a server starts or a round runs.
        if let unknown = Self.unknownArgument(in: arguments) {
            let complaint = unknown == "--help" || unknown == "-h" ? "" : "lupine-bench: \(unknown) is not an argument it takes, or lacks a valid value\n"
            FileHandle.standardError.write(Data((complaint + Self.usage + "\n").utf8))
            exit(complaint.isEmpty ? 0 : 2)
        }
        // Swift concurrency on NIO's event loops when asked: an await that NIO
        // resumes then carries on on the same thread. Installed before anything is enqueued.
        let onEventLoops = arguments.contains("--nio-executor") && NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        if arguments.contains("--serve") || arguments.contains("--serve-h2") {
            try await ServerProcess.serve(http2: arguments.contains("--serve-h2"))
        }
        let requests = Self.value(of: "--requests", in: arguments).flatMap(Int.init) ?? 20_000
        let rounds = Self.value(of: "--rounds", in: arguments).flatMap(Int.init) ?? 5
        let transferSize = Self.value(of: "--transfer-bytes", in: arguments).flatMap(Int.init) ?? (1 << 30)
        if let path = Self.value(of: "--profile", in: arguments) {
            let concurrency = Self.value(of: "--concurrency", in: arguments).flatMap(Int.init) ?? 64
            try await Self.profile(path, url: Self.value(of: "--url", in: arguments), concurrency: concurrency, requests: requests)
            return
        }
        let only = Self.value(of: "--only", in: arguments)
        print(
            "lupine-bench: \(ProcessInfo.processInfo.activeProcessorCount) cores; Swift concurrency "
                + (onEventLoops ? "on NIO's event loops" : "on Swift's own pool (--nio-executor to run it on NIO's event loops)")
        )
        if only == nil || only == "session" {
            let server = try PinnedServer()
            defer { server.stop() }
            try await NetworkComparison.run(server: server, rounds: rounds, requests: requests)
        }
        if only == nil || only == "http2" {
            try await HTTP2Comparison.run(rounds: rounds, requests: requests, downloadSize: transferSize)
        }
        if only == nil || only == "layer" {
            try await Self.layerCost(requests: requests)
        }
        if only == nil || only == "cache" {
            let server = try PinnedServer()
            defer { server.stop() }
            try await CacheBenchmark.run(server: server, requests: requests)
        }
        if only == nil || only == "observability" {
            let server = try PinnedServer()
            defer { server.stop() }
            try await ObservabilityBenchmark.run(server: server, rounds: rounds, requests: requests)
        }
        if only == nil || only == "images" {
            try await ImageBenchmark.run()
        }
        // The soak runs only when asked: a million requests is a run of its own.
        if only == "soak" {
            try await SoakBenchmark.run(requests: Self.value(of: "--requests", in: arguments).flatMap(Int.init) ?? 1_000_000)
        }
        if only == nil || only == "transfers" {
            let child = try ServerProcess()
            defer { child.stop() }
            print("\nlarge transfers: LupineTestServer at \(child.baseURL.absoluteString) in a child process")
            TransferBenchmark.print(try await TransferBenchmark.run(base: child.baseURL, size: transferSize))
        }
    }

    /// The first argument that is neither a known flag nor a valid value of a known option, if any.
    static func unknownArgument(in arguments: [String]) -> String? {
        let flags: Set = ["--nio-executor", "--serve", "--serve-h2"]
        let choices: [String: Set<String>] = [
            "--only": ["session", "http2", "layer", "cache", "observability", "images", "transfers", "soak"],
            "--profile": ["transport", "session", "transport-h2", "session-h2"],
        ]
        let counts: Set = ["--rounds", "--requests", "--transfer-bytes", "--concurrency"]
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if flags.contains(argument) {
                index += 1
                continue
            }
            guard index + 1 < arguments.count else { return argument }
            let value = arguments[index + 1]
            let valid =
                choices[argument].map { $0.contains(value) }
                ?? (counts.contains(argument) ? (Int(value) ?? 0) > 0 : argument == "--url" && !value.hasPrefix("-"))
            guard valid else { return "\(argument) \(value)" }
            index += 2
        }
        return nil
    }

    /// One path alone for a profiler, against `url` or a pinned server of its own.
    /// The `-h2` paths run over HTTP/2 against nginx over TLS.
    static func profile(_ path: String, url: String?, concurrency: Int, requests: Int) async throws {
        let http2 = path.hasSuffix("-h2")
        let server = url == nil ? try PinnedServer(tls: http2) : nil
        defer { server?.stop() }
        guard let target = url.map({ $0 + "/get" }) ?? server.map({ http2 ? $0.baseURL.absoluteString + "/get" : $0.documentURL }) else { return }
        _ = PinnedServer.pinClient()
        let configuration = http2 ? TransportConfiguration(serverTrustEvaluator: HTTP2Comparison.trusting) : TransportConfiguration()
        let result =
            path.hasPrefix("session")
            ? try await Self.sessionManager(url: target, concurrency: concurrency, requests: requests, configuration: configuration)
            : try await Self.lupine(url: target, concurrency: concurrency, requests: requests, configuration: configuration)
        ResultTable.print([result])
    }

    /// The session layer's own cost on a stand-in: the same two paths on a transport that replays
    /// the server's recorded response from memory. It leaves out what real load brings (the
    /// scheduler, timers, cache misses), so it is labelled as such and never quoted as the result.
    static func layerCost(requests: Int) async throws {
        let server = try PinnedServer()
        let url = server.documentURL
        guard let target = URL(string: url) else { throw BenchError.invalidURL(url) }
        let headers = HTTPRequestSerializer().httpRequestHeaders
        let recorded = try await RecordedTransport.record(target, headers: headers)
        server.stop()
        let rounds = 10
        print("\nIN-MEMORY STAND-IN, not the result: GET \(url) replayed from memory (\(recorded.body.readableBytes)-byte body), \(rounds) alternating rounds")
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
        ResultTable.printLayerCost(transportRounds: transportRounds, sessionRounds: sessionRounds, what: "on the in-memory stand-in, the session layer")
        ResultTable.printLayerCost(transportRounds: sessionRounds, sessionRounds: retryRounds, what: "on the in-memory stand-in, a RetryPolicy with nothing to retry")
    }

    static func lupine(url: String, concurrency: Int, requests: Int, configuration: TransportConfiguration) async throws -> BenchmarkResult {
        let transport = NIOTransport(configuration: configuration)
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

    static func sessionManager(url: String, concurrency: Int, requests: Int, configuration: TransportConfiguration) async throws -> BenchmarkResult {
        let manager = HTTPSessionManager(configuration: configuration)
        // The session layer itself, as before the cache: the document would be answered from the
        // default cache once its heuristic freshness grows (see `--only cache` for hits).
        manager.urlCache = nil
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

    static func asyncHTTPClientFutures(url: String, concurrency: Int, requests: Int, connections: Int?) async throws -> BenchmarkResult {
        let client = Self.makeAsyncHTTPClient(connections: connections)
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

    static func asyncHTTPClientAsync(url: String, concurrency: Int, requests: Int, connections: Int?) async throws -> BenchmarkResult {
        let client = Self.makeAsyncHTTPClient(connections: connections)
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

    /// An AsyncHTTPClient with its default pool, or `connections` per host.
    static func makeAsyncHTTPClient(connections: Int?) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        if let connections {
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
        }
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
    case serverDidNotStart
    /// A tool the part needs is not installed.
    case missing(String)
    /// A cache that should hold the response did not.
    case cacheMiss(String)
    /// A response that is not what the request asked for.
    case unexpected(String)
}
