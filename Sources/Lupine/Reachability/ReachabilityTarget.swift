#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a ``NetworkReachabilityManager`` watches.
package enum ReachabilityTarget: Sendable, Equatable {
    /// Any address: whether the machine has a default route on an interface that is up.
    case anyAddress
    /// A host name, resolved again on every change of the network.
    case domain(String)
    /// An IP address.
    case address(IPAddress)

    /// The target for `domain`, checked where it enters.
    ///
    /// - Throws: ``LupineError/reachabilityFailed(_:)`` with ``LupineError/ReachabilityFailureReason/invalidDomain(_:)``
    ///   for an empty name, one over 253 bytes, or one with whitespace, control or invisible
    ///   formatting characters (a bidi override).
    package static func domain(checking domain: String) throws(LupineError) -> ReachabilityTarget {
        let invalid = domain.unicodeScalars.contains { scalar in
            scalar.properties.isWhitespace || [.control, .format].contains(scalar.properties.generalCategory)
        }
        guard !domain.isEmpty, domain.utf8.count <= 253, !invalid else {
            throw .reachabilityFailed(.invalidDomain(domain))
        }
        return .domain(domain)
    }

    /// The target for `address`, checked where it enters.
    ///
    /// - Throws: ``LupineError/reachabilityFailed(_:)`` with ``LupineError/ReachabilityFailureReason/invalidAddress(_:)``
    ///   for a string that is not an IPv4 or IPv6 address.
    package static func address(checking address: String) throws(LupineError) -> ReachabilityTarget {
        guard let parsed = IPAddress(address) else {
            throw .reachabilityFailed(.invalidAddress(address))
        }
        return .address(parsed)
    }
}
