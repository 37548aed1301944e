import Foundation
import NIOHTTP1

/// What makes two requests able to share a connection: scheme, host, port, the Unix domain
/// socket they are sent to instead (if any), the proxy, the HTTP versions allowed, trust
/// settings and who answers a request for a client certificate.
struct PoolKey: Hashable, Sendable, CustomStringConvertible {
    enum Scheme: String, Sendable {
        case http
        case https
    }

    let scheme: Scheme
    /// The server's name (the `Host` field, SNI and the certificate check); `localhost` for an
    /// `http+unix` or `https+unix` URL, whose host is the socket's path.
    let host: String
    let port: Int
    /// The Unix domain socket connections go to instead of `host` and `port`.
    let socketPath: String?
    /// The proxy connections go through.
    let proxy: Proxy?
    /// The trust hook, for `https`; `nil` for `http`. Compared by identity.
    let trustEvaluator: ServerTrustEvaluator?
    /// The HTTP versions a connection may speak.
    let httpVersion: HTTPVersionSelection
    /// Asked for a client certificate, for `https`; `nil` for `http`. Compared by identity.
    let clientIdentityProvider: ClientIdentityProvider?

    /// Splits an absolute URL into its pool key, or throws ``TransportError`` for a URL the
    /// transport cannot serve. An `http+unix` or `https+unix` URL names its socket's path,
    /// percent-encoded, as its host (`http+unix://%2Fvar%2Frun%2Fdocker.sock/info`); otherwise
    /// `socketPath`, when given, is where the URL's server is reached.
    init(
        url: URL,
        trustEvaluator: ServerTrustEvaluator,
        socketPath: String? = nil,
        proxies: ProxySettings? = nil,
        httpVersion: HTTPVersionSelection = .automatic,
        clientIdentityProvider: ClientIdentityProvider? = nil
    ) throws {
        guard let schemeName = url.scheme?.lowercased() else {
            throw TransportError.invalidURL(url.absoluteString)
        }
        let overUnixSocket = schemeName.hasSuffix("+unix")
        guard let scheme = Scheme(rawValue: overUnixSocket ? String(schemeName.dropLast(5)) : schemeName) else {
            throw TransportError.unsupportedScheme(schemeName)
        }
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw TransportError.invalidURL(url.absoluteString)
        }
        self.scheme = scheme
        let port = url.port ?? (scheme == .https ? 443 : 80)
        guard (1...65535).contains(port) else {
            throw TransportError.invalidURL(url.absoluteString)
        }
        self.port = port
        if overUnixSocket {
            self.host = "localhost"
            self.socketPath = host
        } else {
            self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            self.socketPath = socketPath
        }
        self.trustEvaluator = scheme == .https ? trustEvaluator : nil
        self.httpVersion = httpVersion
        self.clientIdentityProvider = scheme == .https ? clientIdentityProvider : nil
        self.proxy = self.socketPath == nil ? proxies?.proxy(for: scheme, host: self.host, port: port) : nil
    }

    /// Whether requests go to an HTTP proxy that forwards them (a plain `http` request), rather
    /// than straight, or through a tunnel, to the origin: they then carry the absolute URL and
    /// the proxy's credentials.
    var isForwardedByProxy: Bool {
        self.proxy?.speaksHTTP == true && self.scheme == .http
    }

    /// The `Host` header value: the host, bracketed when it is an IPv6 address, and a port unless it is the default.
    var hostHeader: String {
        // A byte scan: Foundation's `contains(_: String)` goes through a locale-aware search.
        let host = self.host.utf8.contains(UInt8(ascii: ":")) ? "[\(self.host)]" : self.host
        let defaultPort = self.scheme == .https ? 443 : 80
        return self.port == defaultPort ? host : "\(host):\(self.port)"
    }

    var description: String {
        let origin = "\(self.scheme.rawValue)://\(self.hostHeader)"
        if let proxy {
            return "\(origin) through \(proxy)"
        }
        return self.socketPath.map { "\(origin) over \($0)" } ?? origin
    }
}

extension HTTPHeaders {
    /// The value of the one `Host` field a caller set, which the transport sends instead of the
    /// URL's (a virtual host reached by address, as curl sends `-H 'Host: …'`); `nil` for none,
    /// or for two, which are ambiguous.
    package var callersHost: String? {
        var found: String?
        var count = 0
        for field in self where field.name.utf8.count == 4 && field.name.lowercased() == "host" {
            found = field.value
            count += 1
        }
        return count == 1 ? found : nil
    }
}
