import X509

/// A certificate issued by a ``TestCertificateAuthority`` together with its private key.
public struct IssuedCertificate: Sendable {
    /// The certificate.
    public let certificate: Certificate
    /// The certificate's private key.
    public let privateKey: Certificate.PrivateKey
    /// The certificate, DER encoded.
    public let certificateDER: [UInt8]
    /// The certificate, PEM encoded.
    public let certificatePEM: String

    /// Pairs `certificate` with its key, encoding the certificate as DER and PEM.
    init(certificate: Certificate, privateKey: Certificate.PrivateKey) throws {
        self.certificate = certificate
        self.privateKey = privateKey
        self.certificateDER = try TestCertificateAuthority.derBytes(of: certificate)
        self.certificatePEM = try certificate.serializeAsPEM().pemString
    }

    /// The private key, PEM encoded (PKCS #8).
    public func privateKeyPEM() throws -> String {
        try privateKey.serializeAsPEM().pemString
    }
}
