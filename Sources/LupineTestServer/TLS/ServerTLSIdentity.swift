import NIOSSL

/// The certificate chain a TLS-mode server presents: a chosen one, or by default a fresh root CA
/// and a leaf for `localhost`, `127.0.0.1` and `::1` signed by it.
struct ServerTLSIdentity: Sendable {
    /// The generated root, when the chain was generated.
    let authority: TestCertificateAuthority?
    let chain: ServerCertificateChain

    init() throws {
        let authority = try TestCertificateAuthority()
        let leaf = try authority.issueLeaf(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"])
        self.authority = authority
        self.chain = ServerCertificateChain(leaf: leaf, issuers: [authority.certificateDER])
    }

    init(chain: ServerCertificateChain) {
        self.authority = nil
        self.chain = chain
    }

    /// A server configuration presenting the chain; with `requiringClientCertificates`, one
    /// that also takes only clients presenting a certificate the generated root signed.
    func serverConfiguration(requiringClientCertificates: Bool = false) throws -> TLSConfiguration {
        let certificates = try chain.certificatesDER.map {
            NIOSSLCertificateSource.certificate(try NIOSSLCertificate(bytes: $0, format: .der))
        }
        let pem = try chain.privateKey.serializeAsPEM().pemString
        let key = try NIOSSLPrivateKey(bytes: Array(pem.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: certificates, privateKey: .privateKey(key))
        if requiringClientCertificates, let authority {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: authority.certificateDER, format: .der)])
        }
        return configuration
    }

    /// A client certificate the generated root signs, for ``LupineTestServer/Configuration/requiresClientCertificates``.
    func issueClientCertificate(commonName: String) throws -> IssuedCertificate {
        guard let authority else { throw LupineTestServer.StartupError.invalidConfiguration("the server has no generated root to sign with") }
        return try authority.issueLeaf(commonName: commonName, dnsNames: [], forClients: true)
    }
}
