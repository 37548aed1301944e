import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore

/// Runs `body` with a freshly started test server and a transport, shutting both down afterwards
/// whether `body` succeeds or throws.
func withServerAndTransport<Result>(
    // Started `lenient`: the server's own deadline is not what these tests test.
    server configuration: LupineTestServer.Configuration = .init(),
    // A connect (and TLS handshake) on a fully loaded machine can wait its turn for seconds.
    transport transportConfiguration: TransportConfiguration = .init(connectTimeout: .seconds(60)),
    _ body: (LupineTestServer, NIOTransport) async throws -> Result
) async throws -> Result {
    let server = try await LupineTestServer.start(configuration.lenient)
    let transport = NIOTransport(configuration: transportConfiguration)
    return try await running {
        try await body(server, transport)
    } thenAlways: {
        await transport.shutdown()
        await server.stop()
    }
}

extension URL {
    /// `self` with `path` (and an optional query) appended.
    func appending(_ pathAndQuery: String) -> URL {
        URL(string: self.absoluteString + pathAndQuery) ?? self
    }
}

extension NIOTransport {
    /// Sends a request and reads its whole body (up to 256 MiB).
    func fetch(_ request: TransportRequest) async throws -> (TransportResponse, ByteBuffer) {
        let response = try await self.execute(request)
        let body = try await response.body.collect(upTo: 256 * 1024 * 1024)
        return (response, body)
    }

    /// GETs `url` and reads its whole body.
    func get(_ url: URL) async throws -> (TransportResponse, ByteBuffer) {
        try await self.fetch(TransportRequest(url: url, cancellation: TransportCancellation()))
    }
}

extension ByteBuffer {
    /// The buffer parsed as a JSON object.
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(self.readableBytesView))) as? [String: Any]
    }
}

extension LupineTestServer.Configuration {
    /// This configuration with a request-head and stalled-body deadline of at least a minute: the
    /// client tests do not test the server's deadline (10 s by default), and on a fully loaded
    /// machine a request's task can wait its turn long enough to be cut by it.
    var lenient: Self {
        var configuration = self
        configuration.requestHeadTimeout = max(configuration.requestHeadTimeout, .seconds(60))
        return configuration
    }
}

/// The number of file descriptors this process has open.
func openFileDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}
