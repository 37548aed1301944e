extension SecurityPolicy {
    /// A transport trust hook that applies this policy to each new TLS connection, with the
    /// connection's host as the domain; a refusal carries the reason's description.
    ///
    /// Connections are pooled per evaluator object: create one per policy and keep it, as
    /// ``SessionManager/setSecurityPolicy(_:)`` does.
    public func makeServerTrustEvaluator() -> ServerTrustEvaluator {
        ServerTrustEvaluator { challenge in
            switch await self.evaluate(challenge.certificateChain, forDomain: challenge.host) {
            case .trusted:
                return .trusted
            case .rejected(let reason):
                return .rejected(reason: reason.description)
            }
        }
    }
}
