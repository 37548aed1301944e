#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    package var family: Int32 {
        switch self {
        case .v4: return AF_INET
        case .v6: return AF_INET6
        }
    }

    /// The address's bytes, in network order.
    package var bytes: [UInt8] {
        switch self {
        case .v4(let bytes), .v6(let bytes): return bytes
        }
    }
}
