import Foundation
import Lupine

/// Formats request and response heads as httpie prints them (bodies: ``BodyPrinter``).
enum ExchangeFormatter {
    static func requestHead(_ request: Request) -> String {
        var target = request.url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = request.url.query(percentEncoded: true) { target += "?" + query }
        var lines = ["\(request.method.rawValue) \(target) HTTP/1.1"]
        // As the transport sends it: the caller's one `Host`, else the URL's.
        let callersHost = request.headers.filter { $0.name.lowercased() == "host" }.count == 1
        if !callersHost, let host = request.url.host(percentEncoded: true) {
            // As the transport writes it: an IPv6 address in brackets, no default port.
            let shown = host.contains(":") ? "[\(host)]" : host
            let defaultPort = request.url.scheme?.lowercased() == "https" ? 443 : 80
            lines.append("Host: \(shown)\(request.url.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? "")")
        }
        lines += request.headers.filter { callersHost || $0.name.lowercased() != "host" }.map { "\($0.name): \(Self.redacted($0.name, $0.value))" }
        return lines.joined(separator: "\n") + "\n"
    }

    static func responseHead(_ head: ResponseHead) -> String {
        var lines = ["HTTP/1.1 \(head.statusCode) \(head.status.reasonPhrase)"]
        lines += head.headers.map { "\($0.name): \($0.value)" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Credentials never reach the terminal.
    private static func redacted(_ name: String, _ value: String) -> String {
        ["authorization", "cookie", "proxy-authorization"].contains(name.lowercased()) ? "<redacted>" : value
    }
}
