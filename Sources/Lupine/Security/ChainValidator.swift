import Foundation
@_spi(FixedExpiryValidationTime) @_spi(DisableValidityCheck) import X509

/// Path validation of one presented chain with swift-certificates' `Verifier`: RFC 5280 rules,
/// the server identity check when a domain is given, at a fixed validation time or the current one.
struct ChainValidator: Sendable {
    /// The presented chain, leaf first.
    let chain: [Certificate]
    /// The trust anchors.
    let anchors: CertificateStore
    /// Whether the leaf itself is one of the anchors (a pinned leaf or a self-signed certificate).
    let leafIsAnchor: Bool
    /// The time certificates must be valid at; `nil` for the time of validation.
    let validationTime: Date?

    /// The validated path, leaf to anchor, or why there is none. On failure the chain is checked
    /// again without the name, then without the validity period, to tell the reasons apart.
    func validate(forDomain domain: String?) async -> Result<[Certificate], ServerTrustFailureReason> {
        if let path = await self.path(domain: domain, checksExpiry: true) {
            return .success(path)
        }
        if let domain, await self.path(domain: nil, checksExpiry: true) != nil {
            return .failure(.nameMismatch(domain: domain))
        }
        if await self.path(domain: nil, checksExpiry: false) != nil {
            return .failure(.expired)
        }
        return .failure(.untrustedRoot)
    }

    private func path(domain: String?, checksExpiry: Bool) async -> [Certificate]? {
        guard let leaf = self.chain.first else { return nil }
        let intermediates = CertificateStore(self.chain.dropFirst())
        let identity = domain.map(ServerIdentityPolicy.init(host:))
        let rfc5280 = self.rfc5280Policy(checksExpiry: checksExpiry)
        var verifier = Verifier(rootCertificates: self.anchors) {
            rfc5280
            if let identity { identity }
        }
        if case .validCertificate(let path) = await verifier.validate(leaf: leaf, intermediates: intermediates) {
            return Array(path)
        }
        guard self.leafIsAnchor else { return nil }
        let anchoredLeaf = AnchoredLeafPolicy(checksExpiry: checksExpiry, validationTime: self.validationTime)
        var leafVerifier = Verifier(rootCertificates: self.anchors) {
            anchoredLeaf
            if let identity { identity }
        }
        if case .validCertificate(let path) = await leafVerifier.validate(leaf: leaf, intermediates: CertificateStore()) {
            return Array(path)
        }
        return nil
    }

    private func rfc5280Policy(checksExpiry: Bool) -> RFC5280Policy {
        guard checksExpiry else { return .withValidityCheckDisabled() }
        guard let validationTime = self.validationTime else { return RFC5280Policy() }
        return RFC5280Policy(fixedExpiryValidationTime: validationTime)
    }
}
