import Crypto
import Foundation
import X509

extension IssuedCertificate {
    /// A self-signed server certificate (an end entity, not a CA) with a fresh P-256 key, to test
    /// how a client names a certificate nobody vouches for.
    ///
    /// - Parameters:
    ///   - commonName: The subject common name, or `nil` for a subject with only an organization.
    ///   - dnsNames: `dNSName` subject alternative names; with none the extension is left out, so a
    ///     name can only come from the common name.
    ///   - notValidBefore: Start of validity; defaults to an hour ago.
    ///   - notValidAfter: End of validity; defaults to a day from now.
    public static func selfSigned(
        commonName: String?,
        dnsNames: [String],
        notValidBefore: Date = Date().addingTimeInterval(-3600),
        notValidAfter: Date = Date().addingTimeInterval(86400)
    ) throws -> IssuedCertificate {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let subject = try DistinguishedName {
            OrganizationName("Lupine Self-Signed")
            if let commonName {
                CommonName(commonName)
            }
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            if !dnsNames.isEmpty {
                SubjectAlternativeNames(dnsNames.map(GeneralName.dnsName))
            }
        }
        let certificate = try TestCertificateAuthority.sign(
            subject: subject,
            key: key,
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            extensions: extensions,
            issuer: subject,
            issuerKey: key
        )
        return try IssuedCertificate(certificate: certificate, privateKey: key)
    }
}
