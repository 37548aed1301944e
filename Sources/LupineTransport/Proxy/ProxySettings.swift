import Foundation

/// Which proxy, if any, each request goes through: one for `http` URLs, one for `https` URLs, and
/// the hosts that are reached directly, as curl reads them from its environment.
///
/// The library uses none unless told: set ``TransportConfiguration/proxy`` (to
/// ``environment(_:)`` to follow the environment as curl, Go and reqwest do). `lupine` always
/// follows the environment, and `--proxy` and `--noproxy` override it.
public struct ProxySettings: Sendable, Hashable {
    /// The proxy of `http` requests.
    public var httpProxy: Proxy?
    /// The proxy of `https` requests.
    public var httpsProxy: Proxy?
    private var exceptions: [Exception]

    /// Proxies per scheme, and `noProxy`: a comma-separated list of hosts reached directly, as
    /// curl's `no_proxy` is (`*` alone for every host; a name, which also covers its subdomains,
    /// with or without a leading `.` or `*.`, and with or without a final dot; an IPv4 or IPv6
    /// address; a CIDR range such as `10.0.0.0/8`; any of them with `:port` for that port alone).
    ///
    /// - Parameters:
    ///   - httpProxy: The proxy of `http` requests; `nil` for none.
    ///   - httpsProxy: The proxy of `https` requests; `nil` for none.
    ///   - noProxy: The hosts reached directly, as above.
    ///   - skippingUnreadable: `true` leaves out an entry that is none of these, as curl does
    ///     with its environment (it then matches no host); `false` refuses it.
    /// - Throws: ``ProxyError`` for an entry that is none of these, unless skipped.
    public init(httpProxy: Proxy? = nil, httpsProxy: Proxy? = nil, noProxy: String = "", skippingUnreadable: Bool = false) throws(ProxyError) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.exceptions = try Self.exceptions(noProxy, skippingUnreadable: skippingUnreadable)
    }

    /// The settings curl reads from `environment`: `http_proxy` for `http` (in lower case only:
    /// the upper-case form can be set by a CGI request's `Proxy` header, the "httpoxy" hole),
    /// `https_proxy` or `HTTPS_PROXY` for `https`, `all_proxy` or `ALL_PROXY` for either when
    /// its own is unset (and only then read), and `no_proxy` or `NO_PROXY`, whose unreadable
    /// entries are left out as curl leaves them; the lower-case form wins over the upper-case
    /// one. Empty values count as unset.
    public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(ProxyError) -> ProxySettings {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        }
        func proxy(_ text: String?, _ name: String) throws(ProxyError) -> Proxy? {
            guard let text else { return nil }
            do {
                return try Proxy(url: text)
            } catch {
                throw ProxyError(reason: "\(name): \(error.reason)")
            }
        }
        var http = try proxy(value("http_proxy"), "http_proxy")
        var https = try proxy(value("https_proxy", "HTTPS_PROXY"), "https_proxy")
        if http == nil || https == nil, let all = try proxy(value("all_proxy", "ALL_PROXY"), "all_proxy") {
            http = http ?? all
            https = https ?? all
        }
        return try ProxySettings(httpProxy: http, httpsProxy: https, noProxy: value("no_proxy", "NO_PROXY") ?? "", skippingUnreadable: true)
    }

    /// Whether `noProxy` sends a request to `url` directly, whatever the proxies.
    public func bypasses(_ url: URL) -> Bool {
        guard let (_, host, port) = Self.target(of: url) else { return false }
        return self.isException(host: host, port: port)
    }

    /// The proxy a request to `url` goes through, or `nil` when it goes directly.
    public func proxy(for url: URL) -> Proxy? {
        guard let (scheme, host, port) = Self.target(of: url) else { return nil }
        return self.proxy(for: scheme, host: host, port: port)
    }

    /// The scheme, host (without an IPv6 address's brackets) and port of `url`.
    private static func target(of url: URL) -> (PoolKey.Scheme, String, Int)? {
        guard let scheme = url.scheme.flatMap({ PoolKey.Scheme(rawValue: $0.lowercased()) }),
            var host = url.host(percentEncoded: false)
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        return (scheme, host, url.port ?? (scheme == .https ? 443 : 80))
    }

    /// The proxy a request to `host` and `port` over `scheme` goes through, if any.
    func proxy(for scheme: PoolKey.Scheme, host: String, port: Int) -> Proxy? {
        guard let proxy = scheme == .https ? self.httpsProxy : self.httpProxy else { return nil }
        return self.isException(host: host, port: port) ? nil : proxy
    }

    private func isException(host: String, port: Int) -> Bool {
        let name = Self.withoutFinalDot(host.lowercased())
        // An IPv4 address in any form the resolver takes (`127.1`, `0x7f.0.0.1`, `2130706433`)
        // is matched as the address it names.
        let address = Self.addressBytes(name) ?? IPAddress.numericIPv4(name)
        return self.exceptions.contains { $0.covers(name: name, address: address, port: port) }
    }

    /// A fully qualified name's final dot names the same host (`localhost.`).
    private static func withoutFinalDot(_ name: String) -> String {
        name.count > 1 && name.hasSuffix(".") ? String(name.dropLast()) : name
    }

    /// One entry of `no_proxy`.
    private struct Exception: Sendable, Hashable {
        enum Match: Sendable, Hashable {
            case everyHost
            case name(String)
            case range([UInt8], prefixLength: Int)
        }

        let match: Match
        let port: Int?

        func covers(name: String, address: [UInt8]?, port: Int) -> Bool {
            if let only = self.port, only != port { return false }
            switch self.match {
            case .everyHost:
                return true
            case .name(let suffix):
                // An address is matched by address entries only: `no_proxy=1` is no suffix of 127.0.0.1.
                return address == nil && (name == suffix || name.hasSuffix("." + suffix))
            case .range(let network, let prefixLength):
                guard let address, address.count == network.count else { return false }
                return ProxySettings.prefix(of: address, prefixLength) == ProxySettings.prefix(of: network, prefixLength)
            }
        }
    }

    private static func exceptions(_ list: String, skippingUnreadable: Bool) throws(ProxyError) -> [Exception] {
        // `*` means every host only as the whole list, as in curl.
        if list.trimmingCharacters(in: .whitespaces) == "*" {
            return [Exception(match: .everyHost, port: nil)]
        }
        var exceptions: [Exception] = []
        for raw in list.split(separator: ",") {
            do {
                if let exception = try Self.exception(String(raw)) {
                    exceptions.append(exception)
                }
            } catch  where skippingUnreadable {
                continue
            }
        }
        return exceptions
    }

    /// One entry of a `no_proxy` list; `nil` for an empty one.
    private static func exception(_ raw: String) throws(ProxyError) -> Exception? {
        var entry = raw.trimmingCharacters(in: .whitespaces).lowercased()
        guard !entry.isEmpty else { return nil }
        var port: Int?
        // `host:port`, `[v6]:port` or `v4:port`; a bare IPv6 address has several colons.
        if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
            let rest = entry[entry.index(after: close)...]
            if rest.hasPrefix(":") {
                guard let number = Int(rest.dropFirst()), (1...65535).contains(number) else {
                    throw ProxyError(reason: "\(MessageText.oneLine(String(raw))) has no valid port")
                }
                port = number
            } else if !rest.isEmpty {
                throw ProxyError(reason: "\(MessageText.oneLine(String(raw))) is not a host, address or range")
            }
            entry = String(entry[entry.index(after: entry.startIndex)..<close])
        } else if entry.filter({ $0 == ":" }).count == 1, let colon = entry.firstIndex(of: ":") {
            guard let number = Int(entry[entry.index(after: colon)...]), (1...65535).contains(number) else {
                throw ProxyError(reason: "\(MessageText.oneLine(String(raw))) has no valid port")
            }
            port = number
            entry = String(entry[..<colon])
        }
        if let slash = entry.firstIndex(of: "/") {
            let bits = entry[entry.index(after: slash)...]
            guard let network = Self.addressBytes(String(entry[..<slash])), let length = Int(bits),
                (0...(network.count * 8)).contains(length)
            else {
                throw ProxyError(reason: "\(MessageText.oneLine(String(raw))) is not a valid CIDR range")
            }
            return Exception(match: .range(network, prefixLength: length), port: port)
        } else if let address = Self.addressBytes(entry) {
            return Exception(match: .range(address, prefixLength: address.count * 8), port: port)
        } else {
            var name = entry.hasPrefix("*.") ? String(entry.dropFirst(2)) : entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            name = Self.withoutFinalDot(name)
            guard !name.isEmpty, name != ".", name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_" }) else {
                throw ProxyError(reason: "\(MessageText.oneLine(String(raw))) is not a host, address or range")
            }
            return Exception(match: .name(name), port: port)
        }
    }

    /// The bytes of an IPv4 or IPv6 address, or `nil` for a name.
    static func addressBytes(_ text: String) -> [UInt8]? {
        switch IPAddress(text) {
        case .v4(let bytes)?, .v6(let bytes)?: return bytes
        case nil: return nil
        }
    }

    /// The first `length` bits of `bytes`, the rest zero.
    static func prefix(of bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = max(0, min(8, length - index * 8))
            return kept == 8 ? byte : byte & ~(0xFF >> kept)
        }
    }
}
