import Foundation
import Lupine
import LupineTestServer

/// Runs `body` with a fresh test server and a session manager on a transport of the test's own
/// (no HTTP cache, so only the image cache answers), shutting both down afterwards.
func withDownloaderServer<Result>(
    _ body: (LupineTestServer, HTTPSessionManager) async throws -> Result
) async throws -> Result {
    // A generous head deadline: a loaded machine's scheduling is not what these tests test.
    let server = try await LupineTestServer.start(.init(requestHeadTimeout: .seconds(60)))
    let transport = NIOTransport(configuration: TransportConfiguration())
    let manager = HTTPSessionManager(transport: transport)
    do {
        let result = try await body(server, manager)
        await transport.shutdown()
        await server.stop()
        return result
    } catch {
        await transport.shutdown()
        await server.stop()
        throw error
    }
}

extension LupineTestServer {
    /// A request for `path` (and query) on this server.
    func request(_ path: String, cachePolicy: Request.CachePolicy = .useProtocolCachePolicy) -> Request {
        Request(url: URL(string: self.baseURL.absoluteString + path) ?? self.baseURL, cachePolicy: cachePolicy)
    }

    /// Opens gate `key` of the gated endpoints.
    func openGate(_ key: String, with manager: HTTPSessionManager) async throws {
        _ = try await manager.response(for: self.request("/gated/\(key)/open"), serializer: HTTPResponseSerializer())
    }

    /// How many requests reached `/gated/KEY/image/png`.
    func gatedRequests(_ key: String) -> Int {
        self.attempts(forKey: "gated-\(key)")
    }
}

/// Waits until `condition` holds, checking every few milliseconds, or throws after `timeout`
/// (for what only polling can see, such as the server's request counts).
func waitUntil(timeout: Duration = .seconds(120), _ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimeout(what: what) }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// ``waitUntil(timeout:_:_:)`` gave up.
struct WaitTimeout: Error {
    let what: String
}
