import Foundation
import NIOHTTP1
import Tracing

/// A task's client span, described by OpenTelemetry's HTTP client conventions: named after the
/// method, with `http.request.method`, `url.full` (credentials and query values left out, see
/// ``ObservedURL``), `server.address` and `server.port` when it starts; when it ends,
/// `http.response.status_code`, `network.peer.address` and `network.peer.port` (of the final
/// request's connection), `http.request.resend_count` (retries and redirects, when any) and, for
/// a failure or a status of 400 or above, `error.type` and an error status.
enum RequestSpan {
    /// The methods the conventions know; any other is `_OTHER`, so a label's values stay few.
    private static let knownMethods: Set<String> = ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE"]

    /// `method` as a span attribute or a metric dimension names it.
    static func methodName(_ method: HTTPMethod) -> String {
        Self.knownMethods.contains(method.rawValue) ? method.rawValue : "_OTHER"
    }

    /// The span's name: the method, or `HTTP` for one the conventions do not know.
    static func name(method: String) -> String {
        method == "_OTHER" ? "HTTP" : method
    }

    /// The attributes known before anything is sent.
    static func describe(_ request: Request, method: String, on span: any Span) {
        guard span.isRecording else { return }
        span.updateAttributes { attributes in
            attributes["http.request.method"] = method
            if method == "_OTHER" {
                attributes["http.request.method_original"] = request.method.rawValue
            }
            attributes["url.full"] = ObservedURL.full(request.url)
            if let host = request.url.host(percentEncoded: false) {
                attributes["server.address"] = host
            }
            if let port = request.url.port ?? Self.defaultPort(of: request.url) {
                attributes["server.port"] = port
            }
        }
    }

    /// Describes how the task ended, and ends the span.
    static func finish(_ span: any Span, with outcome: ExecutionOutcome) {
        defer { span.end() }
        guard span.isRecording else { return }
        let statusCode = outcome.head?.statusCode
        let errorType = outcome.error.map(\.observedKind) ?? statusCode.flatMap { $0 >= 400 ? String($0) : nil }
        span.updateAttributes { attributes in
            if let statusCode {
                attributes["http.response.status_code"] = statusCode
            }
            switch outcome.metrics?.networkProtocolName {
            case "h2"?: attributes["network.protocol.version"] = "2"
            case "http/1.1"?: attributes["network.protocol.version"] = "1.1"
            default: break
            }
            if let peer = outcome.metrics?.remoteAddress.flatMap(Self.peer) {
                attributes["network.peer.address"] = peer.address
                attributes["network.peer.port"] = peer.port
            }
            let resent = outcome.retryCount + outcome.redirectChain.count
            if resent > 0 {
                attributes["http.request.resend_count"] = resent
            }
            if let errorType {
                attributes["error.type"] = errorType
            }
        }
        if let error = outcome.error {
            span.recordError(error)
        }
        if let errorType {
            span.setStatus(SpanStatus(code: .error, message: outcome.error?.description ?? "HTTP \(errorType)"))
        }
    }

    /// An attempt failed and a retrier sends it again: an event `http.request.retry` with the
    /// count the next attempt is sent as, why the last failed, and the wait before it.
    static func retry(after context: RetryContext, delay: Duration, on span: any Span) {
        guard span.isRecording else { return }
        var attributes: SpanAttributes = [:]
        attributes["http.request.resend_count"] = context.retryCount + 1
        attributes["error.type"] = context.response.map { String($0.statusCode) } ?? context.error.observedKind
        attributes["lupine.retry.delay_ms"] = Int(delay / .milliseconds(1))
        span.addEvent(SpanEvent(name: "http.request.retry", attributes: attributes))
    }

    /// The task follows a redirect of `response` to `request`: an event `http.request.redirect`.
    static func redirect(to request: Request, from response: ResponseHead, on span: any Span) {
        guard span.isRecording else { return }
        var attributes: SpanAttributes = [:]
        attributes["http.response.status_code"] = response.statusCode
        attributes["url.full"] = ObservedURL.full(request.url)
        span.addEvent(SpanEvent(name: "http.request.redirect", attributes: attributes))
    }

    private static func defaultPort(of url: URL) -> Int? {
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    /// `ip:port` as the transport records a peer (an IPv6 address unbracketed), split.
    private static func peer(_ remoteAddress: String) -> (address: String, port: Int)? {
        guard let colon = remoteAddress.lastIndex(of: ":"), let port = Int(remoteAddress[remoteAddress.index(after: colon)...]) else { return nil }
        return (String(remoteAddress[..<colon]), port)
    }
}
