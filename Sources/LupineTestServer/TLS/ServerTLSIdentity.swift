import NIOSSL

/// The certificate chain a TLS-mode server presents: a fresh root CA and a leaf for `localhost`,
/// `127.0.0.1` and `::1` signed by it.
struct ServerTLSIdentity: Sendable {
    let authority: TestCertificateAuthority
    let leaf: IssuedCertificate

    init() throws {
        authority = try TestCertificateAuthority()
        leaf = try authority.issueLeaf(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"])
    }

    /// A server configuration presenting `[leaf, root]`.
    func serverConfiguration() throws -> TLSConfiguration {
        let chain = try [leaf.certificateDER, authority.certificateDER].map {
            NIOSSLCertificateSource.certificate(try NIOSSLCertificate(bytes: $0, format: .der))
        }
        let key = try NIOSSLPrivateKey(bytes: Array(leaf.privateKeyPEM().utf8), format: .pem)
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
    }
}
