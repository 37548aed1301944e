extension LupineTestServer {
    /// Why ``LupineTestServer/start(_:)`` failed, beyond the underlying bind or TLS errors it
    /// rethrows.
    public enum StartupError: Error, Equatable {
        /// The main server stopped before it started listening.
        case serverExitedBeforeListening
        /// A listener bound but reported no local port.
        case noBoundPort
        /// The configured host does not form a valid URL.
        case invalidHost(String)
    }
}
