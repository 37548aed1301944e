import Foundation
import Lupine

/// A fresh ``HTTPCache`` hit, from memory and from disk, against the same small GET over the
/// network, in one run: the cache's own lookup (``HTTPCache/lookup(_:)``: the RFC 9111 decision
/// and the stored body) and a whole session request answered from it.
enum CacheBenchmark {
    static func run(server: PinnedServer, requests: Int) async throws {
        let url = server.cacheableDocumentURL
        guard let target = URL(string: url) else { throw BenchError.invalidURL(url) }
        _ = PinnedServer.pinClient()
        let directory = FileManager.default.temporaryDirectory.appending(path: "lupine-bench-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let memory = HTTPCache(memoryCapacity: 4 * 1024 * 1024)
        let disk = try HTTPCache(memoryCapacity: 0, diskCapacity: 64 * 1024 * 1024, directory: directory)
        print("\nHTTP cache: GET \(url) (JSON, max-age=3600) from \(server.name); concurrency 1, medians")

        let network = HTTPSessionManager()
        network.urlCache = nil
        let serializer = JSONResponseSerializer()
        var results = [
            try await LoadRunner.run(client: "session, network", concurrency: 1, requests: requests, warmUp: 200) {
                _ = try await network.request(.GET, url, serializer: serializer)
            }
        ]
        for (name, cache) in [("memory", memory), ("disk", disk)] {
            let manager = HTTPSessionManager()
            manager.urlCache = cache
            // The first request stores the response; every later one is a fresh hit.
            _ = try await manager.request(.GET, url, serializer: serializer)
            results.append(
                try await LoadRunner.run(client: "session, \(name) hit", concurrency: 1, requests: requests, warmUp: 200) {
                    _ = try await manager.request(.GET, url, serializer: serializer)
                }
            )
            let request = Request(url: target)
            results.append(
                try await LoadRunner.run(client: "HTTPCache.lookup, \(name)", concurrency: 1, requests: requests, warmUp: 200) {
                    guard case .fresh = await cache.lookup(request) else { throw BenchError.cacheMiss(url) }
                }
            )
        }
        ResultTable.print(results)
        for result in results.dropFirst() {
            print(
                String(
                    format: "%@: p50 %.1f µs, %.2f× the network request's", result.client, result.percentileMicroseconds(0.5),
                    result.percentileMicroseconds(0.5) / results[0].percentileMicroseconds(0.5)))
        }
        print("goals: a memory hit under 5 µs, a disk hit under 50 µs")
    }
}
