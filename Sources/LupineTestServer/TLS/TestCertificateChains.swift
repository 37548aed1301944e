import Foundation

/// Every kind of server certificate chain a trust evaluation has to tell apart, generated at once
/// from one test root: for a test matrix, and for servers started with ``chain(_:)``.
///
/// Leaves are for `localhost` (and `127.0.0.1`) unless their kind says otherwise; all are valid from
/// an hour before ``creationTime`` to a day after it, except the expired one.
public struct TestCertificateChains: Sendable {
    /// The kinds of chain.
    public enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
        /// A leaf signed by the root: `[leaf, root]`.
        case valid
        /// A leaf signed by an intermediate signed by the root: `[leaf, intermediate, root]`.
        case intermediate
        /// A leaf signed by the root that expired a day before ``TestCertificateChains/creationTime``.
        case expired
        /// A leaf signed by the root for `other.example` only.
        case otherName
        /// A leaf signed by the root for `*.lupine.test` only.
        case wildcard
        /// A self-signed certificate naming `localhost` only in its common name.
        case selfSignedCommonName
        /// A self-signed certificate naming `localhost` in a subject alternative name.
        case selfSignedAlternativeName
        /// A self-signed certificate with no name at all.
        case selfSignedNoName
        /// The valid leaf renewed: a new certificate for the same key.
        case reissuedSameKey
        /// A leaf like the valid one but with a key of its own.
        case differentKey

        public var description: String { self.rawValue }
    }

    /// The time the chains were generated; every certificate but the expired leaf is valid at it.
    public let creationTime: Date
    /// The root every non-self-signed chain leads to.
    public let root: TestCertificateAuthority
    /// The intermediate CA of ``Kind/intermediate``.
    public let intermediate: TestCertificateAuthority
    /// A root unrelated to every chain, for pinning the wrong one.
    public let unrelatedRoot: TestCertificateAuthority
    private let valid: ServerCertificateChain
    private let viaIntermediate: ServerCertificateChain
    private let expired: ServerCertificateChain
    private let otherName: ServerCertificateChain
    private let wildcard: ServerCertificateChain
    private let selfSignedCommonName: ServerCertificateChain
    private let selfSignedAlternativeName: ServerCertificateChain
    private let selfSignedNoName: ServerCertificateChain
    private let reissuedSameKey: ServerCertificateChain
    private let differentKey: ServerCertificateChain

    /// Generates the root, the intermediate, the unrelated root and one chain of every ``Kind``.
    public init() throws {
        let now = Date()
        let root = try TestCertificateAuthority(notValidBefore: now.addingTimeInterval(-7 * 86400))
        let intermediate = try root.issueIntermediate(notValidBefore: now.addingTimeInterval(-7 * 86400))
        let names = ["localhost"]
        let addresses = ["127.0.0.1"]
        let valid = try root.issueLeaf(dnsNames: names, ipAddresses: addresses)
        let expired = try root.issueLeaf(
            dnsNames: names,
            ipAddresses: addresses,
            notValidBefore: now.addingTimeInterval(-3 * 86400),
            notValidAfter: now.addingTimeInterval(-86400)
        )
        let rootDER = [root.certificateDER]
        self.creationTime = now
        self.root = root
        self.intermediate = intermediate
        self.unrelatedRoot = try TestCertificateAuthority(commonName: "Unrelated Test Root CA")
        self.valid = ServerCertificateChain(leaf: valid, issuers: rootDER)
        self.viaIntermediate = ServerCertificateChain(
            leaf: try intermediate.issueLeaf(dnsNames: names, ipAddresses: addresses),
            issuers: [intermediate.certificateDER, root.certificateDER]
        )
        self.expired = ServerCertificateChain(leaf: expired, issuers: rootDER)
        self.otherName = ServerCertificateChain(leaf: try root.issueLeaf(dnsNames: ["other.example"]), issuers: rootDER)
        self.wildcard = ServerCertificateChain(leaf: try root.issueLeaf(dnsNames: ["*.lupine.test"]), issuers: rootDER)
        self.selfSignedCommonName = ServerCertificateChain(leaf: try .selfSigned(commonName: "localhost", dnsNames: []))
        self.selfSignedAlternativeName = ServerCertificateChain(
            leaf: try .selfSigned(commonName: "Lupine Self-Signed", dnsNames: names)
        )
        self.selfSignedNoName = ServerCertificateChain(leaf: try .selfSigned(commonName: nil, dnsNames: []))
        self.reissuedSameKey = ServerCertificateChain(
            leaf: try root.issueLeaf(dnsNames: names, ipAddresses: addresses, privateKey: valid.privateKey),
            issuers: rootDER
        )
        self.differentKey = ServerCertificateChain(
            leaf: try root.issueLeaf(dnsNames: names, ipAddresses: addresses),
            issuers: rootDER
        )
    }

    /// The chain of `kind`.
    public func chain(_ kind: Kind) -> ServerCertificateChain {
        switch kind {
        case .valid: return self.valid
        case .intermediate: return self.viaIntermediate
        case .expired: return self.expired
        case .otherName: return self.otherName
        case .wildcard: return self.wildcard
        case .selfSignedCommonName: return self.selfSignedCommonName
        case .selfSignedAlternativeName: return self.selfSignedAlternativeName
        case .selfSignedNoName: return self.selfSignedNoName
        case .reissuedSameKey: return self.reissuedSameKey
        case .differentKey: return self.differentKey
        }
    }
}
