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
        lines += head.headers.map { field in
            let isURL = ["location", "content-location"].contains(field.name.lowercased())
            return "\(field.name): \(isURL ? Self.withoutPassword(field.value) : field.value)"
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A URL field's value with the password of its user-info, if any, shown as `<redacted>`
    /// (`http://user:<redacted>@host/`): a redirect can carry one, and `-v` shows no credential.
    static func withoutPassword(_ value: String) -> String {
        guard let slashes = value.range(of: "//") else { return value }
        let authority = value[slashes.upperBound...].prefix { !"/?#".contains($0) }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return value }
        return String(value[..<value.index(after: colon)]) + "<redacted>" + String(value[at...])
    }

    /// Credentials never reach the terminal.
    private static func redacted(_ name: String, _ value: String) -> String {
        ["authorization", "cookie", "proxy-authorization"].contains(name.lowercased()) ? "<redacted>" : value
    }
}
