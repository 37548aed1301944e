import Foundation

/// Conversion of textual IP addresses to the network-order bytes used in `iPAddress` names.
enum IPAddressBytes {
    /// Four bytes for IPv4, sixteen for IPv6, or nil when `address` is neither.
    static func parse(_ address: String) -> [UInt8]? {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, address, &ipv4) == 1 {
            return withUnsafeBytes(of: &ipv4) { Array($0) }
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, address, &ipv6) == 1 {
            return withUnsafeBytes(of: &ipv6) { Array($0) }
        }
        return nil
    }
}
