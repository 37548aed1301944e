#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
