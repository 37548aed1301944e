import Foundation

/// A proxy requests go through: an HTTP proxy (plain requests forwarded, `https` ones through a
/// `CONNECT` tunnel), the same spoken over TLS (an HTTPS proxy), or a SOCKS5 proxy (a tunnel for
/// both), with the credentials it asks for.
///
/// Credentials go to the proxy alone: never to an origin, never through a tunnel, and never into
/// a description, an error or `-v` output (``description`` shows the user name at most).
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// How a proxy is spoken to.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy (`http://`): `http` requests are forwarded in absolute form, `https`
        /// ones go through a `CONNECT` tunnel.
        case http
        /// An HTTP proxy spoken to over TLS (`https://`, as curl's): its own certificate is judged
        /// by ``TransportConfiguration/proxyTrustEvaluator``, and an `https` origin's inside the
        /// tunnel by the origin's trust hook.
        case https
        /// SOCKS5 (`socks5://`), names resolved here.
        case socks5
        /// SOCKS5 (`socks5h://`), names resolved by the proxy.
        case socks5h
    }

    public let kind: Kind
    public let host: String
    public let port: Int
    /// The user name and password the proxy asks for (Basic for HTTP, RFC 1929 for SOCKS5).
    public let credentials: Credentials?

    /// A proxy's user name and password.
    public struct Credentials: Sendable, Hashable {
        public let user: String
        public let password: String

        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    public init(kind: Kind, host: String, port: Int, credentials: Credentials? = nil) {
        self.kind = kind
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.credentials = credentials
    }

    /// A proxy from a URL as curl takes it: `http://[user:password@]host[:port]` (port 1080 by
    /// default, as curl's), `https://…` (port 443), `socks5://…` or `socks5h://…` (port 1080), or
    /// a bare `host:port` (an HTTP proxy). Credentials in the URL are percent-decoded.
    public init(url text: String) throws(ProxyError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let url = URL(string: withScheme), let scheme = url.scheme?.lowercased() else {
            throw ProxyError(reason: "\(Self.redacted(text)) is not a proxy URL")
        }
        let kind: Kind
        switch scheme {
        case "http": kind = .http
        case "https": kind = .https
        case "socks5": kind = .socks5
        case "socks5h": kind = .socks5h
        default:
            throw ProxyError(reason: "the proxy scheme \(MessageText.oneLine(scheme)) is not supported; use http://, https://, socks5:// or socks5h://")
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw ProxyError(reason: "\(Self.redacted(text)) names no proxy host")
        }
        // A port the URL spells but that does not parse as one (2^63 and beyond) is no default.
        guard url.port != nil || !Self.spellsPort(withScheme) else {
            throw ProxyError(reason: "\(Self.redacted(text)) has no valid port")
        }
        let port = url.port ?? (kind == .https ? 443 : 1080)
        guard (1...65535).contains(port) else {
            throw ProxyError(reason: "\(Self.redacted(text)) has no valid port")
        }
        let user = url.user(percentEncoded: false)
        let password = url.password(percentEncoded: false)
        self.init(
            kind: kind,
            host: host,
            port: port,
            credentials: user.map { Credentials(user: $0, password: password ?? "") }
        )
    }

    /// `scheme://host:port`, with the user name but never the password.
    public var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let user = self.credentials.map { "\(MessageText.oneLine($0.user))@" } ?? ""
        return "\(self.kind.rawValue)://\(user)\(host):\(self.port)"
    }

    /// Whether it speaks HTTP (forwarding plain requests, `CONNECT` for the others), in the
    /// clear or over TLS.
    var speaksHTTP: Bool { self.kind == .http || self.kind == .https }

    /// `host:port`, as errors name the proxy.
    var endpoint: String {
        self.host.contains(":") ? "[\(self.host)]:\(self.port)" : "\(self.host):\(self.port)"
    }

    /// The `Proxy-Authorization` value for an HTTP proxy, when it has credentials.
    var basicAuthorization: String? {
        self.credentials.map { "Basic " + Data("\($0.user):\($0.password)".utf8).base64EncodedString() }
    }

    /// Whether the authority of the URL `text` has a `:port` part.
    private static func spellsPort(_ text: String) -> Bool {
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        let rest = text[start...]
        var authority = rest[..<(rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex)]
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
        }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            authority = authority[authority.index(after: close)...]
        }
        return authority.contains(":")
    }

    /// `text` with any password replaced, for messages.
    static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let start = text.range(of: "://")?.upperBound ?? Optional(text.startIndex),
            start < at
        else { return MessageText.oneLine(text) }
        let userInfo = text[start..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return MessageText.oneLine(text) }
        return MessageText.oneLine(String(text[..<colon]) + ":***" + String(text[at...]))
    }
}

/// A proxy setting that cannot be used, in words a person can act on.
public struct ProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    public var description: String { self.reason }
}
