extension LupineTestServer {
    /// How a ``LupineTestServer`` listens.
    public struct Configuration: Sendable {
        /// The address both listeners bind to: `"127.0.0.1"` by default; `"::1"` also works.
        public var host: String
        /// The main listener's port; 0 lets the kernel choose. The fault listener always gets a
        /// kernel-chosen port.
        public var port: Int
        /// Whether the main listener serves HTTPS with a certificate chain generated at start.
        public var tls: Bool
        /// When set, the main listener serves HTTPS presenting this chain (whatever ``tls`` says).
        public var certificateChain: ServerCertificateChain?
        /// When set, the main listener closes keep-alive connections that stay idle this long.
        public var idleTimeout: Duration?

        /// Creates a configuration.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            tls: Bool = false,
            idleTimeout: Duration? = nil,
            certificateChain: ServerCertificateChain? = nil
        ) {
            self.host = host
            self.port = port
            self.tls = tls
            self.idleTimeout = idleTimeout
            self.certificateChain = certificateChain
        }
    }
}
