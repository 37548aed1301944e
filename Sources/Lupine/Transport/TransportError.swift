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
    /// The whole request, from queueing to the last body byte, took longer than its deadline.
    case requestTimeout(timeout: TimeAmount)
    /// The TLS handshake failed for a reason other than the trust decision.
    case tlsHandshakeFailed(host: String, underlying: any Error)
    /// The server's certificate chain (DER, leaf first) was rejected by the trust evaluator.
    case serverTrustRejected(host: String, reason: String, certificateChain: [[UInt8]])
    /// The server closed the connection before sending a complete response head.
    case connectionClosedBeforeResponse
    /// The server closed the connection before the response body was complete.
    case connectionClosedMidBody(receivedBytes: Int, expectedBytes: Int?)
    /// The server's response violated HTTP/1.1 (malformed status line, oversized header block, …).
    case invalidResponse(reason: String)
    /// The compressed body inflated beyond the configured ratio limit (a decompression bomb).
    case decompressionLimitExceeded(ratio: Int)
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
    /// The request was cancelled.
    case cancelled
    /// The transport was shut down before or while the request ran.
    case shutdown

    public var description: String {
        switch self {
        case .invalidURL(let url):
            return "The URL \"\(url)\" is not a valid absolute http(s) URL."
        case .unsupportedScheme(let scheme):
            return "The scheme \"\(scheme)\" is not supported; use http or https."
        case .hostNotFound(let host):
            return "The host \"\(host)\" could not be resolved."
        case .connectionFailed(let host, let port, let underlying):
            return "Could not connect to \(host):\(port): \(underlying)."
        case .connectTimeout(let host, let port, let timeout):
            return "Connecting to \(host):\(port) took longer than \(timeout.lupineSeconds) s."
        case .readTimeout(let timeout):
            return "The server sent nothing for \(timeout.lupineSeconds) s."
        case .requestTimeout(let timeout):
            return "The request did not complete within \(timeout.lupineSeconds) s."
        case .tlsHandshakeFailed(let host, let underlying):
            return "The TLS handshake with \(host) failed: \(underlying)."
        case .serverTrustRejected(let host, let reason, _):
            return "The certificate of \(host) was not trusted: \(reason)."
        case .connectionClosedBeforeResponse:
            return "The server closed the connection before sending a response."
        case .connectionClosedMidBody(let received, let expected):
            let of = expected.map { " of \($0)" } ?? ""
            return "The server closed the connection after \(received)\(of) body bytes."
        case .invalidResponse(let reason):
            return "The server sent an invalid HTTP response: \(reason)."
        case .decompressionLimitExceeded(let ratio):
            return "The compressed response inflated beyond \(ratio)× its size and was abandoned."
        case .decompressionFailed(let reason):
            return "The compressed response could not be decoded: \(reason)."
        case .requestBodyFailed(let underlying):
            return "Reading the request body failed: \(underlying)."
        case .requestBodyLengthMismatch(let declared, let produced):
            return "The request body declared \(declared) bytes but produced \(produced)."
        case .invalidHeader(let name, let reason):
            return HeaderFieldValidation.message(name: name, reason: reason)
        case .cancelled:
            return "The request was cancelled."
        case .shutdown:
            return "The transport has been shut down."
        }
    }
}

extension TimeAmount {
    /// The amount in seconds, for messages.
    var lupineSeconds: Double { Double(self.nanoseconds) / 1_000_000_000 }
}
