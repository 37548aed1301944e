import Foundation
import Lupine
import LupineTestServer
import Testing

/// AFNetworking's own pinning cases, and the reason given for each refusal: pinning the leaf, the
/// intermediate, the root, the whole chain, an extra unrelated pin, an empty pin set, the wrong
/// chain, the wrong domain, renewal under certificate and public-key pinning. Each runs as a pure
/// evaluation and over real TLS.
@Suite struct SecurityPolicyPinningTests {
    typealias Kind = TestCertificateChains.Kind

    /// What a case pins.
    enum Pin: Sendable {
        case leaf(of: Kind)
        case intermediate
        case root
        case unrelatedRoot
        case wholeChain(of: Kind)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let chain: Kind
        var mode: SecurityPolicy.PinningMode = .certificate
        var pins: [Pin] = []
        var allowInvalid = false
        var validatesDomain = true
        var domain = "localhost"
        var trustsTestRoot = true
        /// `nil` when the chain must be trusted, else the reason it must be refused for.
        let refusal: ServerTrustFailureReason?

        var testDescription: String { self.name }
    }

    static let cases: [Case] = [
        Case(name: "pinning the leaf", chain: .valid, pins: [.leaf(of: .valid)], refusal: nil),
        Case(name: "pinning the intermediate", chain: .intermediate, pins: [.intermediate], refusal: nil),
        Case(name: "pinning the root", chain: .intermediate, pins: [.root], refusal: nil),
        Case(name: "pinning the whole chain", chain: .intermediate, pins: [.wholeChain(of: .intermediate)], refusal: nil),
        Case(name: "an extra unrelated pin", chain: .valid, pins: [.leaf(of: .valid), .unrelatedRoot], refusal: nil),
        Case(name: "an empty pin set", chain: .valid, pins: [], refusal: .pinMismatch),
        Case(name: "an empty key pin set", chain: .valid, mode: .publicKey, pins: [], refusal: .pinMismatch),
        Case(name: "the wrong chain", chain: .valid, pins: [.unrelatedRoot], refusal: .pinMismatch),
        Case(name: "the wrong chain's key", chain: .valid, mode: .publicKey, pins: [.unrelatedRoot], refusal: .pinMismatch),
        Case(
            name: "the wrong domain",
            chain: .valid,
            pins: [.leaf(of: .valid)],
            domain: "other.example",
            refusal: .nameMismatch(domain: "other.example")
        ),
        Case(
            name: "the wrong domain without domain validation",
            chain: .valid,
            pins: [.leaf(of: .valid)],
            validatesDomain: false,
            domain: "other.example",
            refusal: nil
        ),
        Case(name: "a leaf for another name", chain: .otherName, pins: [.root], refusal: .nameMismatch(domain: "localhost")),
        Case(name: "a renewed leaf under its old certificate pin", chain: .reissuedSameKey, pins: [.leaf(of: .valid)], refusal: .pinMismatch),
        Case(name: "a renewed leaf under its key pin", chain: .reissuedSameKey, mode: .publicKey, pins: [.leaf(of: .valid)], refusal: nil),
        Case(name: "a new key under the old key pin", chain: .differentKey, mode: .publicKey, pins: [.leaf(of: .valid)], refusal: .pinMismatch),
        Case(name: "the intermediate's key", chain: .intermediate, mode: .publicKey, pins: [.intermediate], refusal: nil),
        Case(name: "an expired pinned leaf", chain: .expired, pins: [.leaf(of: .expired)], allowInvalid: true, refusal: .expired),
        Case(name: "an expired chain", chain: .expired, mode: .none, refusal: .expired),
        Case(name: "a wildcard under it", chain: .wildcard, mode: .none, domain: "api.lupine.test", refusal: nil),
        Case(
            name: "a wildcard two labels down",
            chain: .wildcard,
            mode: .none,
            domain: "a.api.lupine.test",
            refusal: .nameMismatch(domain: "a.api.lupine.test")
        ),
        Case(name: "a wildcard for a bare name", chain: .wildcard, mode: .none, refusal: .nameMismatch(domain: "localhost")),
        Case(name: "the test root not trusted", chain: .valid, mode: .none, trustsTestRoot: false, refusal: .untrustedRoot),
        Case(
            name: "a self-signed name without a pin",
            chain: .selfSignedAlternativeName,
            mode: .none,
            allowInvalid: true,
            refusal: .domainValidationRequiresPinning
        ),
        Case(name: "a self-signed certificate, invalid refused", chain: .selfSignedAlternativeName, pins: [.leaf(of: .selfSignedAlternativeName)], refusal: .untrustedRoot),
        Case(name: "a self-signed certificate with no name", chain: .selfSignedNoName, pins: [.leaf(of: .selfSignedNoName)], allowInvalid: true, refusal: .nameMismatch(domain: "localhost")),
    ]

    @Test(arguments: cases)
    func pureEvaluation(_ testCase: Case) async throws {
        let chains = try TrustFixtures.chains()
        let policy = Self.policy(for: testCase, chains: chains)
        let evaluation = await policy.evaluate(
            chains.chain(testCase.chain).certificatesDER,
            forDomain: testCase.domain,
            at: chains.creationTime
        )
        #expect(evaluation == testCase.refusal.map(SecurityPolicy.Evaluation.rejected) ?? .trusted)
    }

    /// One server per chain, reused across that chain's cases; over HTTP/2 by ALPN as over
    /// HTTP/1.1 (ALPN never opens a path around the trust decision).
    @Test(arguments: Set(cases.map(\.chain)).sorted { $0.rawValue < $1.rawValue }, WireProtocol.allCases)
    func realTLS(_ kind: Kind, over wire: WireProtocol) async throws {
        let chains = try TrustFixtures.chains()
        try await TrustFixtures.withServer(over: wire, presenting: kind) { server, transport in
            for testCase in Self.cases where testCase.chain == kind {
                let policy = Self.policy(for: testCase, chains: chains)
                let error = try await TrustFixtures.connect(to: testCase.domain, port: server.port, on: transport, with: policy)
                switch (error, testCase.refusal) {
                case (nil, nil):
                    break
                case (.serverTrustEvaluationFailed(let host, let reason, let presented)?, let refusal?):
                    #expect(host == testCase.domain, "\(testCase.name)")
                    #expect(reason == refusal.description, "\(testCase.name)")
                    #expect(presented == chains.chain(kind).certificatesDER, "\(testCase.name)")
                default:
                    Issue.record("\(testCase.name): expected \(testCase.refusal?.description ?? "trust"), got \(error?.description ?? "trust")")
                }
            }
        }
    }

    static func policy(for testCase: Case, chains: TestCertificateChains) -> SecurityPolicy {
        SecurityPolicy(
            pinningMode: testCase.mode,
            pinnedCertificates: Set(testCase.pins.flatMap { Self.certificates(for: $0, in: chains) }),
            allowInvalidCertificates: testCase.allowInvalid,
            validatesDomainName: testCase.validatesDomain,
            additionalTrustRoots: testCase.trustsTestRoot ? [chains.root.certificateDER] : []
        )
    }

    static func certificates(for pin: Pin, in chains: TestCertificateChains) -> [[UInt8]] {
        switch pin {
        case .leaf(let kind): return [chains.chain(kind).leafDER]
        case .intermediate: return [chains.intermediate.certificateDER]
        case .root: return [chains.root.certificateDER]
        case .unrelatedRoot: return [chains.unrelatedRoot.certificateDER]
        case .wholeChain(let kind): return chains.chain(kind).certificatesDER
        }
    }
}
