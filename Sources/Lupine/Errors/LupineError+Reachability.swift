extension LupineError {
    /// Why a ``NetworkReachabilityManager`` could not be made or could not watch the network.
    public enum ReachabilityFailureReason: Sendable {
        /// The host name is empty, longer than 253 bytes, or holds whitespace, control or
        /// invisible formatting characters.
        case invalidDomain(String)
        /// The text is not an IPv4 or IPv6 address.
        case invalidAddress(String)
        /// The kernel cannot be watched (a netlink socket cannot be opened); `reason` is the system's.
        case monitorUnavailable(reason: String)
    }

    /// The sentence for a reachability failure.
    static func describe(_ reason: ReachabilityFailureReason) -> String {
        switch reason {
        case .invalidDomain(let domain):
            return "\(MessageText.oneLine(domain.debugDescription)) is not a host name; give a name such as example.com"
        case .invalidAddress(let address):
            return "\(MessageText.oneLine(address.debugDescription)) is not an IP address; give one such as 127.0.0.1 or ::1"
        case .monitorUnavailable(let why):
            return "the network cannot be watched: \(MessageText.oneLine(why))"
        }
    }
}
