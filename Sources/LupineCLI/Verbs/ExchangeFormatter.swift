import Foundation
import Lupine

/// Formats request and response heads as httpie prints them (bodies: ``BodyPrinter``).
enum ExchangeFormatter {
    /// The request head as the transport writes it; `asksForEncodings` when the transport adds
    /// the `Accept-Encoding` a request does not have.
    static func requestHead(_ request: Request, asksForEncodings: Bool = true) -> String {
        var target = request.url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = request.url.query(percentEncoded: true) { target += "?" + query }
        var lines = ["\(request.method.rawValue) \(target) HTTP/1.1"]
        // As the transport sends it: the caller's one `Host`, else the URL's.
        let callersHost = request.headers.filter { $0.name.lowercased() == "host" }.count == 1
        if !callersHost, let host = request.url.host(percentEncoded: false) {
            // As the transport writes it: an IPv6 address in brackets, no default port.
            let shown = host.contains(":") ? "[\(host)]" : host
            let defaultPort = request.url.scheme?.lowercased() == "https" ? 443 : 80
            lines.append("Host: \(shown)\(request.url.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? "")")
        }
        let framing = ["content-length", "transfer-encoding"]
        lines += request.headers.filter { field in
            let name = field.name.lowercased()
            return (callersHost || name != "host") && !framing.contains(name)
        }.map { "\($0.name): \(Self.redacted($0.name, $0.value))" }
        lines += Self.framing(of: request)
        // The transport asks for what it can decode when the request does not say.
        if asksForEncodings, !request.headers.contains(name: "Accept-Encoding"), !ContentCoding.acceptEncoding.isEmpty {
            lines.append("Accept-Encoding: \(ContentCoding.acceptEncoding)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The framing the transport gives the request in place of any the caller set: the body's
    /// length, chunked for a body of unknown length, and a length of 0 for a `POST`, `PUT` or
    /// `PATCH` without a body (or a caller's own 0).
    private static func framing(of request: Request) -> [String] {
        guard case .none = request.body else {
            return [request.body.knownLength.map { "Content-Length: \($0)" } ?? "Transfer-Encoding: chunked"]
        }
        let lengths = request.headers["Content-Length"]
        let saysNone = !lengths.isEmpty && lengths.allSatisfy { $0 == "0" }
        return saysNone || [.POST, .PUT, .PATCH].contains(request.method) ? ["Content-Length: 0"] : []
    }

    /// The response head; an HTTP/2 one as curl shows it, `HTTP/2 200` (HTTP/2 has no reason phrase).
    static func responseHead(_ head: ResponseHead) -> String {
        let statusLine =
            head.version.major == 2
            ? "HTTP/2 \(head.statusCode)"
            : "HTTP/1.1 \(head.statusCode) \(head.status.reasonPhrase)"
        var lines = [statusLine]
        lines += head.headers.map { "\($0.name): \($0.value)" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Credentials never reach the terminal.
    private static func redacted(_ name: String, _ value: String) -> String {
        ["authorization", "cookie", "proxy-authorization"].contains(name.lowercased()) ? "<redacted>" : value
    }
}
