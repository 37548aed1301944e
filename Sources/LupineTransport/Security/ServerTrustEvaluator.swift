import X509

/// What a trust evaluator is shown for each new TLS connection.
public struct ServerTrustChallenge: Sendable {
    /// The host the connection was made to (name or literal address), as in the URL.
    public let host: String
    /// The certificates the server presented, DER-encoded, leaf first.
    public let certificateChain: [[UInt8]]
}

/// The answer of a trust evaluation.
public enum ServerTrustDecision: Sendable, Equatable {
    /// The connection may be used.
    case trusted
    /// The connection is refused; `reason` says why, for a person to read.
    case rejected(reason: String)
}

/// The transport's trust hook: it decides, for each new TLS connection, whether the server's
/// certificate chain is acceptable for the host. `SecurityPolicy.makeServerTrustEvaluator()` puts
/// a security policy behind it. NIOSSL checks nothing itself: the evaluator alone decides, host
/// name included.
///
/// Evaluators are compared by identity: connections made under one evaluator are never reused
/// for requests under another.
public final class ServerTrustEvaluator: Sendable {
    private let evaluate: @Sendable (ServerTrustChallenge) async -> ServerTrustDecision

    /// Creates an evaluator from a closure that accepts or rejects each challenge.
    public init(_ evaluate: @escaping @Sendable (ServerTrustChallenge) async -> ServerTrustDecision) {
        self.evaluate = evaluate
    }

    /// Full verification against the system's trust store, with host name checking.
    public static let system = ServerTrustEvaluator.verifying(trustRoots: [], includingSystemRoots: true)

    /// Full verification, with host name checking, against `trustRoots` (DER certificates) and,
    /// when `includingSystemRoots`, the system's trust store.
    public static func verifying(trustRoots: [[UInt8]], includingSystemRoots: Bool = true) -> ServerTrustEvaluator {
        let extraRoots = trustRoots.compactMap { try? Certificate(derEncoded: $0) }
        return ServerTrustEvaluator { challenge in
            let roots =
                includingSystemRoots
                ? CertificateStore.systemTrustRoots.appending(contentsOf: extraRoots)
                : CertificateStore(extraRoots)
            return await Self.verify(challenge, against: roots)
        }
    }

    func evaluate(_ challenge: ServerTrustChallenge) async -> ServerTrustDecision {
        await self.evaluate(challenge)
    }

    /// Verifies `challenge`'s chain against `roots` at the current time, with RFC 5280 path
    /// validation and the server identity check.
    static func verify(_ challenge: ServerTrustChallenge, against roots: CertificateStore) async -> ServerTrustDecision {
        let parsed: [Certificate]
        do {
            parsed = try challenge.certificateChain.map { try Certificate(derEncoded: $0) }
        } catch {
            return .rejected(reason: "the server's certificate could not be parsed: \(TransportErrorWords.describe(error))")
        }
        guard let leaf = parsed.first else {
            return .rejected(reason: "the server presented no certificate")
        }
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy()
            ServerIdentityPolicy(host: challenge.host)
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(parsed.dropFirst()))
        switch result {
        case .validCertificate:
            return .trusted
        case .couldNotValidate(let failures):
            let reasons = failures.map { String(describing: $0.policyFailureReason) }
            return .rejected(reason: reasons.isEmpty ? "no chain to a trusted root" : reasons.joined(separator: "; "))
        }
    }
}

extension ServerTrustEvaluator: Hashable {
    public static func == (lhs: ServerTrustEvaluator, rhs: ServerTrustEvaluator) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
