import Foundation
import Lupine

/// With `-v`, says on standard error how each request reaches its server when that is not
/// straight to the URL's host: through which proxy (its password never shown) and by a tunnel or
/// forwarding, or over which Unix domain socket; and, once the task ends, how long the tunnel
/// took to open.
struct RouteNotice: EventMonitor {
    let proxies: ProxySettings?
    let unixSocket: String?

    func task(_ task: SessionTask, willSend request: Request) {
        if let line = Self.route(of: request.url, proxies: request.proxy ?? self.proxies, unixSocket: self.unixSocket) {
            StandardError.write(TerminalText.sanitized("lupine: \(line)") + "\n")
        }
    }

    func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion) {
        if let opened = completion.metrics?.proxyConnectDuration {
            let milliseconds = Double(opened.components.seconds) * 1000 + Double(opened.components.attoseconds) / 1e15
            StandardError.write("lupine: the proxy's tunnel opened in \(String(format: "%.1f", milliseconds)) ms\n")
        }
    }

    /// How a request to `url` travels, in words, or `nil` when it goes straight to its host.
    static func route(of url: URL, proxies: ProxySettings?, unixSocket: String?) -> String? {
        let scheme = url.scheme?.lowercased() ?? ""
        if scheme.hasSuffix("+unix") {
            return "over the Unix domain socket \(url.host(percentEncoded: false) ?? "")"
        }
        if let unixSocket {
            return "over the Unix domain socket \(unixSocket)"
        }
        guard let proxy = proxies?.proxy(for: url), let host = url.host(percentEncoded: false) else {
            return nil
        }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let target = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        switch proxy.kind {
        case .http where scheme == "http", .https where scheme == "http":
            return "through the proxy \(proxy), which forwards the request"
        case .http, .https:
            return "through the proxy \(proxy), by a CONNECT tunnel to \(target)"
        case .socks5:
            return "through the proxy \(proxy), by a SOCKS5 tunnel to \(target) (the name resolved here)"
        case .socks5h:
            return "through the proxy \(proxy), by a SOCKS5 tunnel to \(target) (the proxy resolves the name)"
        }
    }
}
