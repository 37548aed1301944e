extension LupineTestServer {
    /// Why ``LupineTestServer/start(_:)`` failed, beyond the underlying bind or TLS errors it
    /// rethrows.
    public enum StartupError: Error, Equatable, CustomStringConvertible {
        /// The main server stopped before it started listening.
        case serverExitedBeforeListening
        /// A listener bound but reported no local port.
        case noBoundPort
        /// The configured host does not form a valid URL.
        case invalidHost(String)
        /// A ``Configuration`` setting is out of range; the text names it and its range.
        case invalidConfiguration(String)

        /// One sentence saying what went wrong.
        public var description: String {
            switch self {
            case .serverExitedBeforeListening:
                "The test server stopped before it started listening."
            case .noBoundPort:
                "The test server's listener bound but reported no port."
            case .invalidHost(let host):
                "The test server cannot form a URL for host \"\(host)\": use an address such as 127.0.0.1 or ::1."
            case .invalidConfiguration(let problem):
                "The test server's configuration is invalid: \(problem)."
            }
        }
    }
}
