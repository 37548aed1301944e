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

    /// The bytes of an IPv4 address written in any numeric form the system's resolver takes
    /// (`inet_aton`'s: `127.1`, `0x7f.0.0.1`, `017700000001`, `2130706433`); `nil` for anything
    /// else, a name among them.
    package static func numericIPv4(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count < 64,
            text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") || ($0 >= 48 && $0 <= 57) || (($0 | 0x20) >= 97 && ($0 | 0x20) <= 102) }),
            text.first.map({ $0.isNumber }) == true
        else { return nil }
        var address = in_addr()
        guard inet_aton(text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address.s_addr) { Array($0) }
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
