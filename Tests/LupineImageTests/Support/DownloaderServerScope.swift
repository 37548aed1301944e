import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport

/// Runs `body` with a fresh test server and a session manager on a transport of the test's own
/// (no HTTP cache, so only the image cache answers), shutting both down afterwards.
func withDownloaderServer<Result>(
    _ body: (LupineTestServer, HTTPSessionManager) async throws -> Result
) async throws -> Result {
    try await withTestServer { server in
        let transport = NIOTransport(configuration: TransportConfiguration())
        let manager = HTTPSessionManager(transport: transport)
        return try await running {
            try await body(server, manager)
        } thenAlways: {
            await transport.shutdown()
        }
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
