import Foundation
import Lupine
import LupineTestServer
import Testing

/// Every chain × pinning mode × `allowInvalidCertificates` × `validatesDomainName` × domain given
/// or not, with the expected answer of each cell, evaluated as a pure function at the chains'
/// creation time and, where a domain is given and reachable, over real TLS to the test server.
///
/// Pinning modes pin the chain's anchor: the test root, or the self-signed certificate itself.
/// The test root is trusted besides the system's roots, so chains issued under it are valid.
@Suite struct SecurityPolicyMatrixTests {
    typealias Kind = TestCertificateChains.Kind

    /// One chain under one mode; `expected` holds the eight answers, `+` trusted and `-` refused,
    /// in the order of ``cells``.
    struct Row: Sendable, CustomTestStringConvertible {
        let chain: Kind
        let mode: SecurityPolicy.PinningMode
        let expected: String

        var testDescription: String { "\(self.chain) \(self.mode) \(self.expected)" }
    }

    /// (allowInvalidCertificates, validatesDomainName, domain given), in the order of a row's answers.
    static let cells: [(allowInvalid: Bool, validatesDomain: Bool, domainGiven: Bool)] = [
        (false, false, false), (false, false, true), (false, true, false), (false, true, true),
        (true, false, false), (true, false, true), (true, true, false), (true, true, true),
    ]

    // The last cell of every `.none` row is AFNetworking's first rule: invalid certificates allowed,
    // the domain validated and nothing pinned is refused.
    static let rows: [Row] = [
        //                                    allowInvalid:     F F F F T T T T
        //                                    validatesDomain:  F F T T F F T T
        //                                    domain given:     F T F T F T F T
        Row(chain: .valid, mode: .none, expected: "+++++++-"),
        Row(chain: .valid, mode: .certificate, expected: "++++++++"),
        Row(chain: .valid, mode: .publicKey, expected: "++++++++"),
        Row(chain: .intermediate, mode: .none, expected: "+++++++-"),
        Row(chain: .intermediate, mode: .certificate, expected: "++++++++"),
        Row(chain: .intermediate, mode: .publicKey, expected: "++++++++"),
        // Expired: certificate pinning still requires a valid path; a pinned key does not.
        Row(chain: .expired, mode: .none, expected: "----+++-"),
        Row(chain: .expired, mode: .certificate, expected: "--------"),
        Row(chain: .expired, mode: .publicKey, expected: "----++++"),
        // Another name: refused only where the name is checked against a domain.
        Row(chain: .otherName, mode: .none, expected: "+++-+++-"),
        Row(chain: .otherName, mode: .certificate, expected: "+++-+++-"),
        Row(chain: .otherName, mode: .publicKey, expected: "+++-++++"),
        Row(chain: .wildcard, mode: .none, expected: "+++++++-"),
        Row(chain: .wildcard, mode: .certificate, expected: "++++++++"),
        Row(chain: .wildcard, mode: .publicKey, expected: "++++++++"),
        // Self-signed: never valid against the roots; pinned as itself, its name is still checked.
        Row(chain: .selfSignedCommonName, mode: .none, expected: "----+++-"),
        Row(chain: .selfSignedCommonName, mode: .certificate, expected: "----++++"),
        Row(chain: .selfSignedCommonName, mode: .publicKey, expected: "----++++"),
        Row(chain: .selfSignedAlternativeName, mode: .none, expected: "----+++-"),
        Row(chain: .selfSignedAlternativeName, mode: .certificate, expected: "----++++"),
        Row(chain: .selfSignedAlternativeName, mode: .publicKey, expected: "----++++"),
        Row(chain: .selfSignedNoName, mode: .none, expected: "----+++-"),
        Row(chain: .selfSignedNoName, mode: .certificate, expected: "----+++-"),
        Row(chain: .selfSignedNoName, mode: .publicKey, expected: "----++++"),
        Row(chain: .reissuedSameKey, mode: .none, expected: "+++++++-"),
        Row(chain: .reissuedSameKey, mode: .certificate, expected: "++++++++"),
        Row(chain: .reissuedSameKey, mode: .publicKey, expected: "++++++++"),
        Row(chain: .differentKey, mode: .none, expected: "+++++++-"),
        Row(chain: .differentKey, mode: .certificate, expected: "++++++++"),
        Row(chain: .differentKey, mode: .publicKey, expected: "++++++++"),
    ]

    @Test func everyChainAndModeHasARow() {
        for kind in Kind.allCases {
            for mode in [SecurityPolicy.PinningMode.none, .certificate, .publicKey] {
                #expect(Self.rows.filter { $0.chain == kind && $0.mode == mode }.count == 1, "\(kind) \(mode)")
            }
        }
        #expect(Self.rows.allSatisfy { $0.expected.count == Self.cells.count })
    }

    @Test(arguments: rows)
    func pureEvaluation(_ row: Row) async throws {
        let chains = try TrustFixtures.chains()
        let chain = chains.chain(row.chain).certificatesDER
        for (index, cell) in Self.cells.enumerated() {
            let policy = try Self.policy(for: row, cell: index, chains: chains)
            let domain = cell.domainGiven ? TrustFixtures.domain(of: row.chain) : nil
            let trusted = await policy.evaluateServerTrust(chain, forDomain: domain, at: chains.creationTime)
            #expect(trusted == Self.expectation(row, cell: index), "\(Self.describe(cell))")
        }
    }

    /// One server per chain, reused for all of its cells with a domain; each cell gets a fresh
    /// connection because each policy gets its own evaluator. The wildcard's domain reaches the
    /// loopback server through the transport's fixed host addresses.
    @Test(arguments: Kind.allCases)
    func realTLS(_ kind: Kind) async throws {
        let chains = try TrustFixtures.chains()
        let domain = TrustFixtures.domain(of: kind)
        try await TrustFixtures.withServer(presenting: kind) { server, transport in
            for row in Self.rows where row.chain == kind {
                for (index, cell) in Self.cells.enumerated() where cell.domainGiven {
                    let policy = try Self.policy(for: row, cell: index, chains: chains)
                    let error = try await TrustFixtures.connect(to: domain, port: server.port, on: transport, with: policy)
                    let expected = Self.expectation(row, cell: index)
                    #expect((error == nil) == expected, "\(row.mode) \(Self.describe(cell)): \(error?.description ?? "trusted")")
                    if let error, !expected {
                        guard case .serverTrustEvaluationFailed(let host, _, let presented) = error else {
                            Issue.record("not a server-trust error: \(error)")
                            continue
                        }
                        #expect(host == domain)
                        #expect(presented == chains.chain(kind).certificatesDER)
                    }
                }
            }
        }
    }

    static func policy(for row: Row, cell index: Int, chains: TestCertificateChains) throws -> SecurityPolicy {
        let cell = Self.cells[index]
        return SecurityPolicy(
            pinningMode: row.mode,
            pinnedCertificates: row.mode == .none ? [] : [TrustFixtures.anchor(of: row.chain, in: chains)],
            allowInvalidCertificates: cell.allowInvalid,
            validatesDomainName: cell.validatesDomain,
            additionalTrustRoots: [chains.root.certificateDER]
        )
    }

    static func expectation(_ row: Row, cell index: Int) -> Bool {
        Array(row.expected)[index] == "+"
    }

    static func describe(_ cell: (allowInvalid: Bool, validatesDomain: Bool, domainGiven: Bool)) -> String {
        "allowInvalid=\(cell.allowInvalid) validatesDomain=\(cell.validatesDomain) domain=\(cell.domainGiven ? "given" : "nil")"
    }
}
