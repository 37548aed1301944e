import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway certificate authority for tests: a self-signed P-256 root that issues server
/// certificates for chosen names, addresses and validity periods.
///
/// ```swift
/// let authority = try TestCertificateAuthority()
/// let leaf = try authority.issueLeaf(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"])
/// ```
public struct TestCertificateAuthority: Sendable {
    /// Errors raised while issuing certificates.
    public enum Error: Swift.Error, Equatable {
        /// A string given as an IP address is neither dotted IPv4 nor textual IPv6.
        case invalidIPAddress(String)
    }

    /// The root certificate.
    public let certificate: Certificate
    /// The root's signing key.
    public let privateKey: Certificate.PrivateKey
    /// The root certificate, DER encoded.
    public let certificateDER: [UInt8]
    /// The root certificate, PEM encoded.
    public let certificatePEM: String

    /// Creates a root CA (`basicConstraints` CA, `keyCertSign`) with a fresh P-256 key.
    ///
    /// - Parameters:
    ///   - commonName: The subject and issuer common name.
    ///   - notValidBefore: Start of validity; defaults to an hour ago to absorb clock skew.
    ///   - notValidAfter: End of validity; defaults to a day from now.
    public init(
        commonName: String = "Lupine Test Root CA",
        notValidBefore: Date = Date().addingTimeInterval(-3600),
        notValidAfter: Date = Date().addingTimeInterval(86400)
    ) throws {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let name = try DistinguishedName {
            OrganizationName("Lupine")
            CommonName(commonName)
        }
        try self.init(
            certificate: Self.makeAuthorityCertificate(
                subject: name,
                key: key,
                notValidBefore: notValidBefore,
                notValidAfter: notValidAfter,
                issuer: name,
                issuerKey: key,
                authorityKeyIdentifier: nil
            ),
            privateKey: key
        )
    }

    private init(certificate: Certificate, privateKey: Certificate.PrivateKey) throws {
        self.certificate = certificate
        self.privateKey = privateKey
        self.certificateDER = try Self.derBytes(of: certificate)
        self.certificatePEM = try certificate.serializeAsPEM().pemString
    }

    /// Issues an intermediate CA signed by this authority, with a fresh P-256 key; it issues leaves
    /// as the root does, and they chain to the root through it.
    ///
    /// - Parameter commonName: The intermediate's subject common name.
    public func issueIntermediate(
        commonName: String = "Lupine Test Intermediate CA",
        notValidBefore: Date = Date().addingTimeInterval(-3600),
        notValidAfter: Date = Date().addingTimeInterval(86400)
    ) throws -> TestCertificateAuthority {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let name = try DistinguishedName {
            OrganizationName("Lupine")
            CommonName(commonName)
        }
        let certificate = try Self.makeAuthorityCertificate(
            subject: name,
            key: key,
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            issuer: self.certificate.subject,
            issuerKey: self.privateKey,
            authorityKeyIdentifier: try self.certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        )
        return try TestCertificateAuthority(certificate: certificate, privateKey: key)
    }

    private static func makeAuthorityCertificate(
        subject: DistinguishedName,
        key: Certificate.PrivateKey,
        notValidBefore: Date,
        notValidAfter: Date,
        issuer: DistinguishedName,
        issuerKey: Certificate.PrivateKey,
        authorityKeyIdentifier: ArraySlice<UInt8>?
    ) throws -> Certificate {
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: key.publicKey)
            if let authorityKeyIdentifier {
                AuthorityKeyIdentifier(keyIdentifier: authorityKeyIdentifier)
            }
        }
        return try Self.sign(
            subject: subject,
            key: key,
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            extensions: extensions,
            issuer: issuer,
            issuerKey: issuerKey
        )
    }

    /// A v3 certificate for `key` and `subject`, signed with ECDSA-SHA256 by `issuerKey`.
    static func sign(
        subject: DistinguishedName,
        key: Certificate.PrivateKey,
        notValidBefore: Date,
        notValidAfter: Date,
        extensions: Certificate.Extensions,
        issuer: DistinguishedName,
        issuerKey: Certificate.PrivateKey
    ) throws -> Certificate {
        try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: key.publicKey,
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            issuer: issuer,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: issuerKey
        )
    }

    /// Issues a server (leaf) certificate signed by this authority, with a fresh P-256 key.
    ///
    /// - Parameters:
    ///   - commonName: The subject common name; defaults to the first DNS name.
    ///   - dnsNames: `dNSName` subject alternative names.
    ///   - ipAddresses: `iPAddress` subject alternative names, as `"127.0.0.1"` or `"::1"`.
    ///   - notValidBefore: Start of validity; defaults to an hour ago.
    ///   - notValidAfter: End of validity; defaults to a day from now. Pass a past date for an
    ///     expired certificate.
    ///   - privateKey: The leaf's key; a fresh P-256 key by default. Pass an earlier leaf's key to
    ///     renew it with the same public key.
    ///   - forClients: Whether the certificate identifies a client (mutual TLS) rather than a server.
    /// - Returns: The certificate and its key.
    public func issueLeaf(
        commonName: String? = nil,
        dnsNames: [String],
        ipAddresses: [String] = [],
        notValidBefore: Date = Date().addingTimeInterval(-3600),
        notValidAfter: Date = Date().addingTimeInterval(86400),
        privateKey leafKey: Certificate.PrivateKey? = nil,
        forClients: Bool = false
    ) throws -> IssuedCertificate {
        let key = leafKey ?? Certificate.PrivateKey(P256.Signing.PrivateKey())
        var alternativeNames = dnsNames.map(GeneralName.dnsName)
        for address in ipAddresses {
            guard let bytes = IPAddressBytes.parse(address) else {
                throw Error.invalidIPAddress(address)
            }
            alternativeNames.append(.ipAddress(ASN1OctetString(contentBytes: bytes[...])))
        }
        let subject = try DistinguishedName {
            OrganizationName("Lupine")
            CommonName(commonName ?? dnsNames.first ?? ipAddresses.first ?? "Lupine Test Server")
        }
        let authorityKeyIdentifier = try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([forClients ? .clientAuth : .serverAuth])
            SubjectAlternativeNames(alternativeNames)
            SubjectKeyIdentifier(hash: key.publicKey)
            AuthorityKeyIdentifier(keyIdentifier: authorityKeyIdentifier)
        }
        let leaf = try Self.sign(
            subject: subject,
            key: key,
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            extensions: extensions,
            issuer: certificate.subject,
            issuerKey: privateKey
        )
        return try IssuedCertificate(certificate: leaf, privateKey: key)
    }

    static func derBytes(of certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
