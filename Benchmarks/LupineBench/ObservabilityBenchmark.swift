import Foundation
import Lupine
import Metrics
import Tracing

/// `--only observability`: what metrics and tracing cost a session when nothing is bootstrapped.
/// The same session request over the network, in alternating rounds, from a session with neither
/// set and from one set to the process's metrics factory and tracer, which are swift-metrics'
/// NOOP factory and the no-op tracer until a backend is bootstrapped (this process bootstraps none).
enum ObservabilityBenchmark {
    static func run(server: PinnedServer, rounds: Int, requests: Int) async throws {
        let url = server.documentURL
        _ = PinnedServer.pinClient()
        print("\nmetrics and tracing with no backend bootstrapped: GET \(url) (JSON) from \(server.name); \(rounds) alternating rounds")
        // One transport, so both sessions use the same pool: two pools of their own made the second
        // session's figure a few per cent lower at c=64 even when both were set alike.
        let transport = NIOTransport(configuration: TransportConfiguration())
        let off = Self.session(on: transport)
        let unbootstrapped = Self.session(on: transport)
        unbootstrapped.metrics = .bootstrapped
        unbootstrapped.tracer = InstrumentationSystem.tracer
        let serializer = JSONResponseSerializer()
        for concurrency in [1, 64] {
            var offRounds: [BenchmarkResult] = []
            var setRounds: [BenchmarkResult] = []
            let count = concurrency == 1 ? requests / 8 : requests
            for round in 0..<rounds {
                // Each goes first in every other round: the second of a pair runs after the first's
                // connections went idle, which on its own costs the second a few per cent at c=64.
                for setFirst in round.isMultiple(of: 2) ? [false, true] : [true, false] {
                    if setFirst {
                        setRounds.append(
                            try await LoadRunner.run(client: "session, set, none bootstrapped", concurrency: concurrency, requests: count, warmUp: 200) {
                                _ = try await unbootstrapped.request(.GET, url, serializer: serializer)
                            }
                        )
                    } else {
                        offRounds.append(
                            try await LoadRunner.run(client: "session, neither set", concurrency: concurrency, requests: count, warmUp: 200) {
                                _ = try await off.request(.GET, url, serializer: serializer)
                            }
                        )
                    }
                }
            }
            ResultTable.printLayerCost(transportRounds: offRounds, sessionRounds: setRounds, what: "at concurrency \(concurrency), setting the unbootstrapped backends")
            let ratio = BenchmarkResult(merging: setRounds).requestsPerSecond / BenchmarkResult(merging: offRounds).requestsPerSecond
            print(String(format: "at concurrency %d: %.3f× the throughput of the session with neither set", concurrency, ratio))
        }
        off.invalidateSession(cancelingTasks: false)
        unbootstrapped.invalidateSession(cancelingTasks: false)
        await transport.shutdown()
    }

    /// A session on `transport` with no cache (every request goes over the network).
    private static func session(on transport: NIOTransport) -> HTTPSessionManager {
        let manager = HTTPSessionManager(transport: transport)
        manager.urlCache = nil
        return manager
    }
}
