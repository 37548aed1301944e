import Foundation
import Lupine
import LupineTestServer
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// TLS against the test server's chain, generated at start: the trust hook decides.
@Suite struct TransportTLSTests {
    @Test func defaultTrustRejectsTheSelfGeneratedChain() async throws {
        try await withServerAndTransport(server: .init(tls: true)) { server, transport in
            await #expect {
                _ = try await transport.get(server.baseURL.appending("/get"))
            } throws: { error in
                guard case TransportError.serverTrustRejected(let host, _, _) = error else { return false }
                return host == "127.0.0.1"
            }
        }
    }

    @Test func acceptingHookSeesTheFullChainAndTheHost() async throws {
        let challenges = NIOLockedValueBox<[ServerTrustChallenge]>([])
        let evaluator = ServerTrustEvaluator { challenge in
            challenges.withLockedValue { $0.append(challenge) }
            return .trusted
        }
        try await withServerAndTransport(
            server: .init(tls: true),
            transport: .init(connectTimeout: .seconds(60), serverTrustEvaluator: evaluator)
        ) { server, transport in
            let (response, body) = try await transport.get(server.baseURL.appending("/get?tls=1"))
            #expect(response.status == .ok)
            #expect((body.jsonObject?["args"] as? [String: Any])?["tls"] as? String == "1")
            #expect(response.metrics.secureConnectionDuration != nil)
            _ = try await transport.get(server.baseURL.appending("/get"))
            let seen = challenges.withLockedValue { $0 }
            #expect(seen.count == 1, "one evaluation per new connection, not per request")
            let challenge = try #require(seen.first)
            #expect(challenge.host == "127.0.0.1")
            #expect(challenge.certificateChain.first == server.leafCertificateDER)
        }
    }

    @Test func rejectingHookFailsWithItsReason() async throws {
        let evaluator = ServerTrustEvaluator { _ in .rejected(reason: "pin mismatch") }
        try await withServerAndTransport(
            server: .init(tls: true),
            transport: .init(connectTimeout: .seconds(60), serverTrustEvaluator: evaluator)
        ) { server, transport in
            await #expect {
                _ = try await transport.get(server.baseURL.appending("/get"))
            } throws: { error in
                guard case TransportError.serverTrustRejected("127.0.0.1", "pin mismatch", let chain) = error else { return false }
                return chain.first == server.leafCertificateDER
            }
        }
    }

    @Test(arguments: ["127.0.0.1", "localhost"])
    func verificationAgainstTheServersRootAcceptsItsNames(host: String) async throws {
        let server = try await LupineTestServer.start(.init(tls: true))
        let root = try #require(server.certificateAuthorityDER)
        let transport = NIOTransport(
            configuration: .init(connectTimeout: .seconds(60), serverTrustEvaluator: .verifying(trustRoots: [root], includingSystemRoots: false))
        )
        let url = try #require(URL(string: "https://\(host):\(server.port)/get"))
        let result = await Result(catching: { try await transport.get(url) })
        await transport.shutdown()
        await server.stop()
        #expect(try result.get().0.status == .ok)
    }
}

extension Result where Failure == any Error {
    /// Captures the outcome of an async throwing call.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
