import NIOCore

/// Settings of a ``NIOTransport``: pool limits, timeouts, decompression, server trust and HTTP versions.
public struct TransportConfiguration: Sendable {
    /// The most connections kept open to one scheme, host, port and trust setting. Further requests wait in order.
    public var maximumConnectionsPerHost: Int
    /// How long an unused keep-alive connection stays in the pool before it is closed.
    public var idleConnectionTimeout: TimeAmount
    /// How long name resolution, TCP connect and the TLS handshake may take together.
    public var connectTimeout: TimeAmount
    /// How long the server may send nothing while a response is awaited. `nil` waits forever.
    public var readTimeout: TimeAmount?
    /// The default limit for a whole request, from queueing to the last body byte. `nil` means none.
    public var requestTimeout: TimeAmount?
    /// Whether response bodies in a ``ContentCoding`` are decoded (and `Accept-Encoding` names the
    /// available codings when a request has none).
    public var decompressesResponses: Bool
    /// How far a coded body may inflate before it is abandoned as a decompression bomb.
    public var decompressionLimit: DecompressionLimit
    /// Decides whether each new TLS connection's certificate chain is trusted.
    public var serverTrustEvaluator: ServerTrustEvaluator
    /// Fixed IP addresses for host names (lowercase), used instead of name resolution, as curl's
    /// `--resolve`: `["api.example.test": "127.0.0.1"]`. TLS still sends, and checks, the name.
    public var hostAddresses: [String: String]
    /// Which HTTP versions connections speak: by default `https` offers HTTP/2 and HTTP/1.1 by
    /// ALPN and speaks what the server picks.
    public var httpVersion: HTTPVersionSelection
    /// The proxies requests go through, and the hosts reached directly; `nil` (the default)
    /// reaches every host directly. ``ProxySettings/environment(_:)`` follows the environment
    /// as curl does.
    public var proxy: ProxySettings?
    /// Decides whether an HTTPS proxy's own certificate is trusted (by the proxy's host name);
    /// the system's roots by default. It never judges an origin: through a tunnel, the origin's
    /// certificate goes to ``serverTrustEvaluator`` or a request's own.
    public var proxyTrustEvaluator: ServerTrustEvaluator
    /// The certificate and key TLS connections present to a server that asks for one (mutual
    /// TLS); `nil` presents none.
    public var clientIdentity: ClientIdentity?
    /// Asked for the identity to present when a server requests a client certificate (before
    /// ``clientIdentity``, which stays the answer when it returns `nil`); `nil` asks nothing.
    public var clientIdentityProvider: ClientIdentityProvider?
    /// A Unix domain socket every request is sent to, instead of its URL's host and port, as
    /// curl's `--unix-socket`: the URL still names the server (`Host`, and for `https` the name
    /// TLS sends and checks). A single request reaches a socket with an `http+unix` or
    /// `https+unix` URL instead, whose host is the socket's percent-encoded path.
    public var unixSocketPath: String?

    /// Creates a configuration; every parameter has the default a browser-like client would use.
    public init(
        maximumConnectionsPerHost: Int = 6,
        idleConnectionTimeout: TimeAmount = .seconds(60),
        connectTimeout: TimeAmount = .seconds(10),
        readTimeout: TimeAmount? = .seconds(60),
        requestTimeout: TimeAmount? = nil,
        decompressesResponses: Bool = true,
        decompressionLimit: DecompressionLimit = .default,
        serverTrustEvaluator: ServerTrustEvaluator = .system,
        hostAddresses: [String: String] = [:],
        httpVersion: HTTPVersionSelection = .automatic,
        proxy: ProxySettings? = nil,
        proxyTrustEvaluator: ServerTrustEvaluator = .system,
        clientIdentity: ClientIdentity? = nil,
        clientIdentityProvider: ClientIdentityProvider? = nil,
        unixSocketPath: String? = nil
    ) {
        self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
        self.idleConnectionTimeout = idleConnectionTimeout
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.requestTimeout = requestTimeout
        self.decompressesResponses = decompressesResponses
        self.decompressionLimit = decompressionLimit
        self.serverTrustEvaluator = serverTrustEvaluator
        self.hostAddresses = hostAddresses
        self.httpVersion = httpVersion
        self.proxy = proxy
        self.proxyTrustEvaluator = proxyTrustEvaluator
        self.clientIdentity = clientIdentity
        self.clientIdentityProvider = clientIdentityProvider
        self.unixSocketPath = unixSocketPath
    }
}
