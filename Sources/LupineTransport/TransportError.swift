import Foundation
import NIOCore

/// A failure of the HTTP transport, with enough context for a person to act on it.
///
/// Every way a request can fail below the session layer maps to exactly one case, so callers can
/// react to timeouts, protocol violations, trust failures and cancellation separately.
public enum TransportError: Error, Sendable, CustomStringConvertible {
    /// The URL has no host or cannot be split into scheme, host, port and path.
    case invalidURL(String)
    /// The URL's scheme is neither `http` nor `https`.
    case unsupportedScheme(String)
    /// The host name could not be resolved to any address.
    case hostNotFound(host: String)
    /// No TCP connection could be made to any of the host's addresses.
    case connectionFailed(host: String, port: Int, underlying: any Error)
    /// The TCP connection (including name resolution and, for `https`, the TLS handshake) took too long.
    case connectTimeout(host: String, port: Int, timeout: TimeAmount)
    /// The server sent no byte for the configured idle-read interval.
    case readTimeout(timeout: TimeAmount)
    /// The server answered (2xx) before the streamed request body was complete, then took none of
    /// the rest for `timeout` while it sent nothing the caller had not read.
    case uploadStalledAfterAnswer(timeout: TimeAmount)
    /// The whole request, from queueing to the last body byte, took longer than its deadline.
    case requestTimeout(timeout: TimeAmount)
    /// The proxy (`host:port`) would not carry the request: its name did not resolve, it asked
    /// for credentials (407), refused a tunnel by its rules (403, a SOCKS5 rule), answered
    /// something that is not its protocol, or its certificate was not trusted. Nothing was sent
    /// to the origin.
    case proxyFailed(proxy: String, reason: String)
    /// The connection to the proxy (`host:port`) failed: refused, timed out, or closed during
    /// the tunnel's handshake. Nothing was sent to the origin; another try may succeed, as for
    /// ``connectionFailed(host:port:underlying:)``.
    case proxyConnectionFailed(proxy: String, reason: String)
    /// The proxy (`host:port`) could not open a tunnel to the origin: it answered `CONNECT` with
    /// `502`, `503` or `504` (squid answers `503` when the origin refuses it), or SOCKS5 replied
    /// with a general failure, an unreachable network or host, a refused connection or an expired
    /// TTL. Nothing was sent to the origin; another try may succeed, as for
    /// ``connectionFailed(host:port:underlying:)``.
    case proxyCouldNotReachOrigin(proxy: String, reason: String)
    /// The Unix domain socket requests were to go to cannot be used: it does not exist, is not a
    /// socket, has too long a path, or nothing listens on it.
    case unixSocketUnusable(path: String, reason: String)
    /// The TLS handshake failed for a reason other than the trust decision.
    case tlsHandshakeFailed(host: String, underlying: any Error)
    /// The server's certificate chain (DER, leaf first) was rejected by the trust evaluator.
    case serverTrustRejected(host: String, reason: String, certificateChain: [[UInt8]])
    /// The server closed the connection before sending a complete response head.
    case connectionClosedBeforeResponse
    /// The server closed the connection before the response body was complete.
    case connectionClosedMidBody(receivedBytes: Int, expectedBytes: Int?)
    /// The server answered (2xx) before the streamed request body was complete, then closed the
    /// connection before taking the rest of it: `sentBytes` of the body were written.
    case connectionClosedMidUpload(sentBytes: Int, declaredBytes: Int?)
    /// The server's response violated HTTP/1.1 or HTTP/2; `reason` says how, as a sentence
    /// (`the server's response is not HTTP/1.x`).
    case invalidResponse(reason: String)
    /// The compressed body inflated beyond `limit` (a decompression bomb): `inflatedBytes` from
    /// `compressedBytes` when it was abandoned.
    case decompressionLimitExceeded(inflatedBytes: Int, compressedBytes: Int, limit: DecompressionLimit)
    /// The compressed body could not be inflated.
    case decompressionFailed(reason: String)
    /// Reading the request body from its source failed.
    case requestBodyFailed(underlying: any Error)
    /// The request body produced a different number of bytes than its declared length
    /// (for instance a file that changed size while it was being sent).
    case requestBodyLengthMismatch(declared: Int, produced: Int)
    /// The request's header field `name` is not allowed by HTTP (RFC 9110), for `reason`; it was
    /// not sent.
    case invalidHeader(name: String, reason: String)
    /// The HTTP/2 server said it did not process the request: it refused the request's stream
    /// (`REFUSED_STREAM`), or went away (GOAWAY) before reaching it. Nothing was done, so the
    /// transport sends such a request again on its own, whatever its method, twice at most; this
    /// is the error when it cannot (a body that cannot be read again) or the last try met it too.
    case requestNotProcessed(reason: String)
    /// The request was cancelled.
    case cancelled
    /// The transport was shut down before or while the request ran.
    case shutdown

    /// One plain sentence saying what failed, without a URL's credentials.
    public var description: String {
        switch self {
        case .invalidURL(let url):
            return "\(MessageText.url(url)) is not an absolute http or https URL"
        case .unsupportedScheme(let scheme):
            return "the scheme \(MessageText.oneLine(scheme)) is not supported; use http or https"
        case .hostNotFound(let host):
            return "could not resolve host \(MessageText.oneLine(host))"
        case .connectionFailed(let host, let port, let underlying):
            return TransportErrorWords.connectFailure(underlying, host: host, port: port)
        case .connectTimeout(let host, let port, let timeout):
            return "connection to \(TransportErrorWords.endpoint(host: host, port: port)) timed out after \(timeout.lupineSeconds) s"
        case .proxyFailed(let proxy, let reason):
            return "the proxy \(MessageText.oneLine(proxy)) failed: \(MessageText.oneLine(reason))"
        case .proxyCouldNotReachOrigin(let proxy, let reason):
            return "the proxy \(MessageText.oneLine(proxy)) could not reach the origin: \(MessageText.oneLine(reason))"
        case .proxyConnectionFailed(let proxy, let reason):
            return "could not connect to the proxy \(MessageText.oneLine(proxy)): \(MessageText.oneLine(reason))"
        case .unixSocketUnusable(let path, let reason):
            return "cannot use the Unix domain socket \(MessageText.oneLine(path)): \(MessageText.oneLine(reason))"
        case .readTimeout(let timeout):
            return "the server sent nothing for \(timeout.lupineSeconds) s"
        case .uploadStalledAfterAnswer(let timeout):
            return "the server answered, then took none of the rest of the request body for \(timeout.lupineSeconds) s"
        case .requestTimeout(let timeout):
            return "the request did not complete within \(timeout.lupineSeconds) s"
        case .tlsHandshakeFailed(let host, let underlying):
            return "TLS handshake with \(host) failed: \(TransportErrorWords.tlsFailure(underlying))"
        case .serverTrustRejected(let host, let reason, _):
            return "the certificate of \(host) is not trusted: \(MessageText.oneLine(reason))"
        case .connectionClosedBeforeResponse:
            return "the server closed the connection before sending a response"
        case .connectionClosedMidBody(let received, let expected):
            let of = expected.map { " of \($0)" } ?? ""
            return "the server closed the connection after \(received)\(of) body bytes"
        case .connectionClosedMidUpload(let sent, let declared):
            let of = declared.map { " of \($0)" } ?? ""
            return "the server answered, then closed the connection after taking \(sent)\(of) request body bytes"
        case .invalidResponse(let reason):
            return MessageText.oneLine(reason)
        case .decompressionLimitExceeded(let inflated, let compressed, let limit):
            if let maximum = limit.maximumSize, inflated > maximum {
                return "the compressed response inflated past the limit of \(maximum) bytes and was abandoned"
            }
            let ratio = limit.maximumRatio.map { "\($0)" } ?? "the allowed"
            return "the compressed response inflated from \(compressed) to over \(inflated) bytes, beyond \(ratio) times its size, and was abandoned as a decompression bomb"
        case .decompressionFailed(let reason):
            return "the compressed response could not be inflated: \(MessageText.oneLine(reason))"
        case .requestBodyFailed(let underlying):
            return "could not read the request body: \(TransportErrorWords.describe(underlying))"
        case .requestBodyLengthMismatch(let declared, let produced):
            return "the request body declared \(declared) bytes but produced \(produced)"
        case .invalidHeader(let name, let reason):
            return HeaderFieldValidation.message(name: name, reason: reason)
        case .requestNotProcessed(let reason):
            return "the server did not process the request: \(MessageText.oneLine(reason))"
        case .cancelled:
            return "the request was cancelled"
        case .shutdown:
            return "the transport has been shut down"
        }
    }
}

extension TimeAmount {
    /// The amount in seconds, for messages: `60`, `0.3`.
    var lupineSeconds: String {
        let milliseconds = self.nanoseconds / 1_000_000
        guard milliseconds % 1000 != 0 else { return String(milliseconds / 1000) }
        var text = String(format: "%.3f", Double(self.nanoseconds) / 1_000_000_000)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
