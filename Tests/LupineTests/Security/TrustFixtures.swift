import Foundation
import Lupine
import LupineTestServer
import Testing

/// The certificate chains every trust test uses, generated once per test run.
enum TrustFixtures {
    private static let generated = Result { try TestCertificateChains() }

    /// The chains, or the error generating them.
    static func chains() throws -> TestCertificateChains {
        try self.generated.get()
    }

    /// The domain a chain is meant for: the wildcard's is a name under it, the others' `localhost`
    /// (which the other-name leaf does not carry).
    static func domain(of kind: TestCertificateChains.Kind) -> String {
        kind == .wildcard ? "api.lupine.test" : "localhost"
    }

    /// The names the trust tests connect to, all sent to the loopback test server (the
    /// transport's `hostAddresses`, as curl's `--resolve`), whatever DNS says about them.
    static let loopbackNames = ["api.lupine.test", "a.api.lupine.test", "other.example"]

    /// What a chain is pinned by in the matrix: the test root for chains issued under it, the
    /// certificate itself for a self-signed one.
    static func anchor(of kind: TestCertificateChains.Kind, in chains: TestCertificateChains) -> [UInt8] {
        switch kind {
        case .selfSignedCommonName, .selfSignedAlternativeName, .selfSignedNoName:
            return chains.chain(kind).leafDER
        default:
            return chains.root.certificateDER
        }
    }

    /// Runs `body` with a TLS test server presenting `kind`'s chain and a transport of its own,
    /// stopping both afterwards.
    static func withServer<Result>(
        over wire: WireProtocol? = nil,
        presenting kind: TestCertificateChains.Kind,
        _ body: (LupineTestServer, NIOTransport) async throws -> Result
    ) async throws -> Result {
        let chains = try self.chains()
        return try await withServerAndTransport(
            over: wire,
            server: .init(certificateChain: chains.chain(kind)),
            transport: .init(
                // A bound against a hang: the whole suite shares two cores, and a handshake can wait its turn.
                connectTimeout: .seconds(60),
                hostAddresses: Dictionary(uniqueKeysWithValues: Self.loopbackNames.map { ($0, "127.0.0.1") })
            )
        ) { server, transport in
            try await body(server, transport)
        }
    }

    /// Whether a GET through a manager with `policy` to `https://host:port/get` on `transport` succeeds;
    /// the error when it does not.
    static func connect(
        to host: String,
        port: Int,
        on transport: NIOTransport,
        with policy: SecurityPolicy
    ) async throws -> LupineError? {
        let baseURL = try #require(URL(string: "https://\(host):\(port)/"))
        let manager = HTTPSessionManager(baseURL: baseURL, transport: transport)
        try manager.setSecurityPolicy(policy)
        do {
            _ = try await manager.get("get")
            return nil
        } catch let error as LupineError {
            return error
        }
    }
}
