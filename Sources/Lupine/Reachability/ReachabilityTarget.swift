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

/// An IPv4 or IPv6 address, as the bytes a kernel takes (network order).
package enum IPAddress: Sendable, Hashable {
    case v4([UInt8])
    case v6([UInt8])

    /// Parses dotted IPv4 (`127.0.0.1`) or IPv6 text (`::1`); `nil` for anything else (a name, a
    /// scope suffix, a NUL, which C would read as the end of the text).
    package init?(_ text: String) {
        guard !text.utf8.contains(0), text.utf8.count < 64 else { return nil }
        var v4 = [UInt8](repeating: 0, count: 4)
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(v4)
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            self = .v6(v6)
        } else {
            return nil
        }
    }

    /// The address family (`AF_INET` or `AF_INET6`).
    var family: Int32 {
        switch self {
        case .v4: return AF_INET
        case .v6: return AF_INET6
        }
    }

    /// The address's bytes, in network order.
    var bytes: [UInt8] {
        switch self {
        case .v4(let bytes), .v6(let bytes): return bytes
        }
    }
}

/// Turns a host name into addresses; the system's resolver unless a test gives another.
package struct DomainResolver: Sendable {
    package let resolve: @Sendable (String) -> [IPAddress]

    /// A resolver answering with `resolve`.
    package init(_ resolve: @escaping @Sendable (String) -> [IPAddress]) {
        self.resolve = resolve
    }

    /// `getaddrinfo(3)`: the hosts file, then DNS, as every other program on the machine.
    /// A name that does not resolve gives no addresses.
    package static let system = DomainResolver { name in
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let info = entry?.pointee {
            entry = info.ai_next
            guard let socketAddress = info.ai_addr else { continue }
            if info.ai_family == AF_INET {
                let bytes = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                }
                addresses.append(.v4(bytes))
            } else if info.ai_family == AF_INET6 {
                let bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
                addresses.append(.v6(bytes))
            }
        }
        var seen = Set<IPAddress>()
        return addresses.filter { seen.insert($0).inserted }
    }
}
