/// A server's request for a client certificate during a TLS handshake (mutual TLS): AFNetworking's
/// `NSURLAuthenticationMethodClientCertificate` challenge.
public struct ClientCertificateChallenge: Sendable, Equatable {
    /// The host whose server asks, as the URL names it.
    public let host: String
    /// Its port.
    public let port: Int

    /// Creates a challenge (for tests of a provider).
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

/// Answers a server's request for a client certificate, when the server asks (during the
/// handshake, and only then), with the identity to present, or `nil` to present the
/// transport's ``TransportConfiguration/clientIdentity`` if any, or none.
///
/// Set one as ``TransportConfiguration/clientIdentityProvider`` or per request; connections are
/// pooled per provider (compared by identity), so a connection made with one provider's answer
/// never carries another's requests.
public final class ClientIdentityProvider: Sendable, Hashable {
    private let provide: @Sendable (ClientCertificateChallenge) async -> ClientIdentity?

    /// A provider that answers with `provide`.
    public init(_ provide: @escaping @Sendable (ClientCertificateChallenge) async -> ClientIdentity?) {
        self.provide = provide
    }

    func identity(for challenge: ClientCertificateChallenge) async -> ClientIdentity? {
        await self.provide(challenge)
    }

    public static func == (lhs: ClientIdentityProvider, rhs: ClientIdentityProvider) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
