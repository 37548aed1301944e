extension LupineTestServer {
    /// How a ``LupineTestServer`` listens, and the limits that keep a misbehaving client from
    /// holding it.
    public struct Configuration: Sendable {
        /// The address both listeners bind to: `"127.0.0.1"` by default; `"::1"` also works.
        public var host: String
        /// The main listener's port; 0 lets the kernel choose. The fault listener always gets a
        /// kernel-chosen port.
        public var port: Int
        /// When set, the main listener binds this Unix domain socket instead of ``host`` and
        /// ``port`` (the path must not exist yet); its ``LupineTestServer/baseURL`` is then an
        /// `http+unix` (or `https+unix`) URL naming the socket, and its port 0.
        public var unixSocketPath: String?
        /// Whether the main listener serves HTTPS with a certificate chain generated at start.
        public var tls: Bool
        /// Whether the TLS listener takes only clients presenting a certificate its generated
        /// root signed (``LupineTestServer/issueClientCertificate(commonName:)`` makes one); a
        /// client presenting none fails the handshake.
        public var requiresClientCertificates: Bool
        /// Whether the main listener speaks HTTP/2. Over TLS it offers `h2` and `http/1.1` by
        /// ALPN and serves what the client picks (HTTP/1.1 to a client that offers nothing); in
        /// cleartext it speaks HTTP/2 alone, to clients with prior knowledge (h2c, RFC 9113
        /// §3.3; no `Upgrade: h2c`). An HTTP/2 connection with no open stream for
        /// ``requestHeadTimeout`` (or ``idleTimeout`` if shorter) is sent a graceful GOAWAY and a
        /// PING, and closed once as long again has passed after the client acknowledged the PING
        /// (a client that acknowledges nothing keeps it). `Expect: 100-continue` gets no
        /// `100 Continue` on such a listener.
        public var http2: Bool
        /// Faults an HTTP/2 listener injects, for clients' tests of GOAWAY and refused streams.
        public var http2Faults: HTTP2Faults
        /// When set, the main listener closes keep-alive connections that stay idle this long.
        public var idleTimeout: Duration?
        /// When set, the main listener serves HTTPS presenting this chain (whatever ``tls`` says).
        public var certificateChain: ServerCertificateChain?
        /// How long a connection to either listener has to send a complete request head, counted
        /// from its accept (a TLS handshake included) and, on a keep-alive connection, from the
        /// moment the previous response has been written; 10 seconds by default. A connection that
        /// misses it, silent or trickling bytes, is closed. On the main listener, a request body
        /// that stops arriving for this long while the server waits for it also closes the
        /// connection. The time a response takes is not counted.
        public var requestHeadTimeout: Duration
        /// The largest request body an echo endpoint (`/post`, `/put`, `/patch`, `/delete`,
        /// `/anything`) keeps in memory, 64 MiB by default. A larger body is answered 413 and its
        /// connection closed without reading the rest. `/upload` keeps nothing and has no limit.
        public var maximumRequestBodySize: Int
        /// The request-body bytes that the echo endpoints together may keep in memory, 256 MiB by
        /// default. A request whose body does not fit beside those being handled is answered 503
        /// and its connection closed; bytes are returned when a request's handling ends.
        public var requestBodyBudget: Int
        /// The most connections open at once over both listeners, 1,024 by default; a connection
        /// accepted beyond it is closed at once.
        public var maximumConnections: Int

        /// Creates a configuration.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            tls: Bool = false,
            http2: Bool = false,
            http2Faults: HTTP2Faults = .init(),
            idleTimeout: Duration? = nil,
            certificateChain: ServerCertificateChain? = nil,
            requestHeadTimeout: Duration = .seconds(10),
            maximumRequestBodySize: Int = 64 * 1024 * 1024,
            requestBodyBudget: Int = 256 * 1024 * 1024,
            maximumConnections: Int = 1024,
            unixSocketPath: String? = nil,
            requiresClientCertificates: Bool = false
        ) {
            self.requiresClientCertificates = requiresClientCertificates
            self.host = host
            self.unixSocketPath = unixSocketPath
            self.port = port
            self.tls = tls
            self.http2 = http2
            self.http2Faults = http2Faults
            self.idleTimeout = idleTimeout
            self.certificateChain = certificateChain
            self.requestHeadTimeout = requestHeadTimeout
            self.maximumRequestBodySize = maximumRequestBodySize
            self.requestBodyBudget = requestBodyBudget
            self.maximumConnections = maximumConnections
        }

        /// Throws ``StartupError/invalidConfiguration(_:)`` naming the first setting out of range.
        func validate() throws {
            if let every = http2Faults.goAwayEvery, every < 1 {
                throw StartupError.invalidConfiguration("http2Faults.goAwayEvery must be at least 1")
            }
            if let every = http2Faults.refuseEvery, every < 1 {
                throw StartupError.invalidConfiguration("http2Faults.refuseEvery must be at least 1")
            }
            if let streams = http2Faults.maximumConcurrentStreams, !(0...Int(Int32.max)).contains(streams) {
                throw StartupError.invalidConfiguration("http2Faults.maximumConcurrentStreams must be between 0 and 2^31-1")
            }
            if let window = http2Faults.initialWindowSize, !(1...Int(Int32.max)).contains(window) {
                throw StartupError.invalidConfiguration("http2Faults.initialWindowSize must be between 1 and 2^31-1")
            }
            if let resets = http2Faults.maximumResetStreams, resets < 1 {
                throw StartupError.invalidConfiguration("http2Faults.maximumResetStreams must be at least 1")
            }
            if !(requestHeadTimeout > .zero) {
                throw StartupError.invalidConfiguration("requestHeadTimeout must be positive")
            }
            if let idleTimeout, !(idleTimeout > .zero) {
                throw StartupError.invalidConfiguration("idleTimeout must be positive")
            }
            if maximumRequestBodySize < 0 {
                throw StartupError.invalidConfiguration("maximumRequestBodySize must not be negative")
            }
            if requestBodyBudget < 0 {
                throw StartupError.invalidConfiguration("requestBodyBudget must not be negative")
            }
            if maximumConnections < 1 {
                throw StartupError.invalidConfiguration("maximumConnections must be at least 1")
            }
        }
    }
}
