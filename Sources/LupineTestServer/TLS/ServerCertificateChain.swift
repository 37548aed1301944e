import X509

/// The certificates a TLS-mode ``LupineTestServer`` presents, leaf first, with the leaf's key.
public struct ServerCertificateChain: Sendable {
    /// The presented certificates, DER encoded, leaf first.
    public let certificatesDER: [[UInt8]]
    /// The leaf's private key.
    public let privateKey: Certificate.PrivateKey

    /// A chain of `leaf` followed by `issuers` (DER, nearest issuer first; the root may be left out).
    public init(leaf: IssuedCertificate, issuers: [[UInt8]] = []) {
        self.certificatesDER = [leaf.certificateDER] + issuers
        self.privateKey = leaf.privateKey
    }

    /// The leaf certificate, DER encoded.
    public var leafDER: [UInt8] { self.certificatesDER[0] }
}
