/// Which HTTP versions a ``NIOTransport`` speaks, as curl's `--http1.1`, `--http2` and
/// `--http2-prior-knowledge` choose.
public enum HTTPVersionSelection: Sendable, Hashable {
    /// `https` offers `h2` and `http/1.1` by ALPN and speaks what the server picks (HTTP/1.1 when
    /// it picks nothing); cleartext `http` speaks HTTP/1.1.
    case automatic
    /// HTTP/1.1 only: `https` offers only `http/1.1` by ALPN.
    case http1
    /// HTTP/2 only: `https` offers only `h2` by ALPN, and cleartext `http` speaks HTTP/2 with prior
    /// knowledge (RFC 9113 §3.3, no `Upgrade: h2c`). A server that answers in HTTP/1.1 fails the
    /// request with ``TransportError/invalidResponse(reason:)``.
    case http2PriorKnowledge

    /// The ALPN protocol names offered in the TLS handshake, most preferred first.
    var applicationProtocols: [String] {
        switch self {
        case .automatic: ["h2", "http/1.1"]
        case .http1: ["http/1.1"]
        case .http2PriorKnowledge: ["h2"]
        }
    }

    /// Whether a connection speaks HTTP/2, given the protocol its TLS handshake settled on
    /// (`nil` for cleartext, or when the server picked none).
    func speaksHTTP2(scheme: PoolKey.Scheme, negotiated: String?) -> Bool {
        switch self {
        case .http1: false
        case .http2PriorKnowledge: true
        case .automatic: scheme == .https && negotiated == "h2"
        }
    }
}
