import Foundation
import X509

extension SecurityPolicy {
    /// The outcome of applying a policy to a certificate chain.
    public enum Evaluation: Sendable, Hashable {
        /// The chain is trusted for the domain.
        case trusted
        /// The chain is refused, for `reason`.
        case rejected(ServerTrustFailureReason)
    }

    /// Whether `chain` (DER certificates, leaf first) is trusted for `domain` now.
    ///
    /// The rules are AFNetworking's `evaluateServerTrust:forDomain:`. It is `async` because
    /// swift-certificates' path validation is; it touches no socket.
    ///
    /// - Parameters:
    ///   - chain: The certificates the server presented, DER encoded, leaf first.
    ///   - domain: The host the connection was made to, or `nil` to skip the name check.
    public func evaluateServerTrust(_ chain: [[UInt8]], forDomain domain: String?) async -> Bool {
        await self.evaluate(chain, forDomain: domain) == .trusted
    }

    /// As ``evaluateServerTrust(_:forDomain:)``, with certificates' validity checked at
    /// `validationTime` instead of now, so that a test's answer never depends on the clock.
    public func evaluateServerTrust(_ chain: [[UInt8]], forDomain domain: String?, at validationTime: Date) async -> Bool {
        await self.evaluate(chain, forDomain: domain, at: validationTime) == .trusted
    }

    /// Applies the policy to `chain` for `domain` and says why when it refuses. The rules, in order:
    ///
    /// 1. With a domain, ``allowInvalidCertificates`` and ``validatesDomainName`` both set and nothing
    ///    pinned, the answer is no: a self-signed certificate's name can only be trusted through pinning.
    /// 2. The chain is validated against the system's roots and ``additionalTrustRoots``, with the
    ///    name checked when ``validatesDomainName`` is set and a domain is given.
    /// 3. ``PinningMode/none``: trusted when the chain is valid or ``allowInvalidCertificates`` is set.
    /// 4. Otherwise an invalid chain is refused unless ``allowInvalidCertificates`` is set; then
    ///    ``PinningMode/certificate`` validates the chain again with the pinned certificates as the
    ///    only anchors and requires a pinned certificate in the path, and ``PinningMode/publicKey``
    ///    requires a certificate of the chain to carry a pinned public key.
    ///
    /// - Parameters:
    ///   - chain: The certificates the server presented, DER encoded, leaf first.
    ///   - domain: The host the connection was made to, or `nil` to skip the name check.
    ///   - validationTime: The time certificates must be valid at; `nil` for now.
    public func evaluate(_ chain: [[UInt8]], forDomain domain: String?, at validationTime: Date? = nil) async -> Evaluation {
        guard !chain.isEmpty else { return .rejected(.noCertificate) }
        guard let certificates = try? chain.map({ try Certificate(derEncoded: $0) }) else {
            return .rejected(.unparsableCertificate)
        }
        if domain != nil && self.allowInvalidCertificates && self.validatesDomainName && !self.pinsAnything {
            return .rejected(.domainValidationRequiresPinning)
        }
        let checkedDomain = self.validatesDomainName ? domain : nil
        var validatedPath: [Certificate] = []
        if !self.allowInvalidCertificates {
            let roots = CertificateStore.systemTrustRoots.appending(contentsOf: Self.parsed(self.additionalTrustRoots))
            let validator = ChainValidator(chain: certificates, anchors: roots, leafIsAnchor: false, validationTime: validationTime)
            switch await validator.validate(forDomain: checkedDomain) {
            case .success(let path): validatedPath = path
            case .failure(let reason): return .rejected(reason)
            }
        }
        switch self.pinningMode {
        case .none:
            return .trusted
        case .certificate:
            return await self.evaluateCertificatePins(certificates, domain: checkedDomain, at: validationTime)
        case .publicKey:
            return self.evaluatePublicKeyPins(certificates + validatedPath)
        }
    }

    private func evaluateCertificatePins(_ chain: [Certificate], domain: String?, at validationTime: Date?) async -> Evaluation {
        let pinned = Set(Self.parsed(self.pinnedCertificates))
        let validator = ChainValidator(
            chain: chain,
            anchors: CertificateStore(Array(pinned)),
            leafIsAnchor: chain.first.map(pinned.contains) ?? false,
            validationTime: validationTime
        )
        switch await validator.validate(forDomain: domain) {
        case .success(let path):
            return path.contains(where: pinned.contains) ? .trusted : .rejected(.pinMismatch)
        case .failure(.untrustedRoot):
            return .rejected(.pinMismatch)
        case .failure(let reason):
            return .rejected(reason)
        }
    }

    private func evaluatePublicKeyPins(_ chain: [Certificate]) -> Evaluation {
        var keys = Set(Self.parsed(self.pinnedCertificates).map(\.publicKey))
        keys.formUnion(self.pinnedPublicKeys.compactMap { try? Certificate.PublicKey(derEncoded: $0) })
        return chain.contains { keys.contains($0.publicKey) } ? .trusted : .rejected(.pinMismatch)
    }

    /// The certificates among `ders` that parse; the rest can match nothing.
    private static func parsed(_ ders: Set<[UInt8]>) -> [Certificate] {
        ders.compactMap { try? Certificate(derEncoded: $0) }
    }
}
