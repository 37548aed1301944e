import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

/// The protocols the session-level suites run over: each of their tests runs once over each,
/// from the same code (`@Test(arguments: WireProtocol.allCases)` and `over: wire` to the fixture).
enum WireProtocol: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case http1 = "HTTP/1.1"
    case http2 = "HTTP/2"

    var testDescription: String { self.rawValue }

    /// `configuration` with its main listener speaking `wire` (unchanged without one).
    static func server(_ configuration: LupineTestServer.Configuration, over wire: WireProtocol?) -> LupineTestServer.Configuration {
        guard let wire else { return configuration }
        var configuration = configuration
        configuration.http2 = wire == .http2
        return configuration
    }

    /// `configuration` speaking `wire` to a server made by ``server(_:over:)``: HTTP/2 by ALPN
    /// alone over TLS and with prior knowledge in cleartext (unchanged without one).
    static func transport(_ configuration: TransportConfiguration, over wire: WireProtocol?) -> TransportConfiguration {
        guard let wire else { return configuration }
        var configuration = configuration
        configuration.httpVersion = wire == .http2 ? .http2PriorKnowledge : .http1
        return configuration
    }
}

/// Runs `body` with a freshly started test server and a transport, both speaking `wire` when
/// given, shutting both down afterwards whether `body` succeeds or throws.
@discardableResult
func withServerAndTransport<Result>(
    over wire: WireProtocol? = nil,
    // Started `lenient`: the server's own deadline is not what these tests test.
    server configuration: LupineTestServer.Configuration = .init(),
    // A connect (and TLS handshake) on a fully loaded machine can wait its turn for seconds.
    transport transportConfiguration: TransportConfiguration = .init(connectTimeout: .seconds(60)),
    _ body: (LupineTestServer, NIOTransport) async throws -> Result
) async throws -> Result {
    try await withTestServer(WireProtocol.server(configuration, over: wire).lenient) { server in
        let transport = NIOTransport(configuration: WireProtocol.transport(transportConfiguration, over: wire))
        return try await running {
            try await body(server, transport)
        } thenAlways: {
            await transport.shutdown()
        }
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

/// The number of file descriptors this process has open.
func openFileDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}
