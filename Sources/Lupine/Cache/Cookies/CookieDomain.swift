import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hosts and domains as RFC 6265 compares them (§5.1.2, §5.1.3).
enum CookieDomain {
    /// `domain` lower-cased, without a leading dot.
    static func canonical(_ domain: String) -> String {
        let lowered = domain.lowercased()
        return lowered.hasPrefix(".") ? String(lowered.dropFirst()) : lowered
    }

    /// The canonical host of `url` (§5.1.2) when cookies apply to it (`http`, `https`, `ws`,
    /// `wss`): lower-case, percent-decoded, an international name in its ASCII (`xn--`) form, an
    /// IPv6 address without its brackets; `nil` for other schemes or no host.
    static func host(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), ["http", "https", "ws", "wss"].contains(scheme),
            var host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        return host
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// RFC 6265 §5.1.3: `host` is `domain`, or a name (not an IP address) ending in `.` + `domain`.
    static func matches(_ host: String, domain: String) -> Bool {
        if host == domain {
            return true
        }
        return host.utf8.reversed().starts(with: domain.utf8.reversed())
            && host.utf8.dropLast(domain.utf8.count).last == UInt8(ascii: ".")
            && !Self.isIPAddress(host)
    }

    /// Whether `url` is a secure context for cookies: `https` or `wss`, or, as curl decides it, a
    /// plain connection to the loopback names `localhost`, `127.0.0.1` or `::1`, which never
    /// leave the machine.
    static func isSecureContext(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), let host = Self.host(of: url) else { return false }
        return scheme == "https" || scheme == "wss" || ["localhost", "127.0.0.1", "::1"].contains(host)
    }
}
