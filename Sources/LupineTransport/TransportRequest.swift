import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP request as the transport sends it: method, absolute URL, header fields and body.
public struct TransportRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The absolute `http` or `https` URL.
    public var url: URL
    /// The header fields. `Host`, `Content-Length` and `Transfer-Encoding` are set by the transport.
    public var headers: HTTPHeaders
    /// The body, or `nil` for none.
    public var body: TransportRequestBody?
    /// A limit for this whole request; `nil` uses the transport's ``TransportConfiguration/requestTimeout``.
    public var timeout: TimeAmount?
    /// Called on the connection's event loop each time body bytes have been written to the
    /// socket (taken by the kernel, not merely queued), with the total written so far. A retry
    /// on a new connection starts counting again from zero.
    public var bodyProgress: (@Sendable (_ totalBytesWritten: Int) -> Void)?
    /// The trust hook for an `https` request; `nil` uses the transport's
    /// ``TransportConfiguration/serverTrustEvaluator``. Connections are pooled per evaluator object.
    public var serverTrustEvaluator: ServerTrustEvaluator?
    /// The HTTP versions this request may use; `nil` uses the transport's
    /// ``TransportConfiguration/httpVersion``. Connections are pooled per selection, so a request
    /// forced to HTTP/1.1 never shares an HTTP/2 connection, and the reverse.
    public var httpVersion: HTTPVersionSelection?
    /// The proxies for this request; `nil` uses the transport's ``TransportConfiguration/proxy``,
    /// and an empty ``ProxySettings/init(httpProxy:httpsProxy:noProxy:skippingUnreadable:)`` sends it straight to
    /// the origin. Connections are pooled per proxy.
    public var proxy: ProxySettings?
    /// Asked for a client certificate when an `https` server requests one; `nil` uses the
    /// transport's ``TransportConfiguration/clientIdentityProvider``. Connections are pooled per
    /// provider.
    public var clientIdentityProvider: ClientIdentityProvider?
    /// The handle that cancels the request without cancelling the Swift task running it. Every
    /// request has one, and every ``Transport`` stops on it: a transport that wraps another (a
    /// cache, a retry layer, a recorder) and builds requests of its own must pass it on.
    public var cancellation: TransportCancellation

    /// Creates a request that `cancellation` cancels (hand a fresh ``TransportCancellation/init()``
    /// when only Swift task cancellation should).
    public init(
        method: HTTPMethod = .GET,
        url: URL,
        headers: HTTPHeaders = [:],
        body: TransportRequestBody? = nil,
        timeout: TimeAmount? = nil,
        bodyProgress: (@Sendable (_ totalBytesWritten: Int) -> Void)? = nil,
        serverTrustEvaluator: ServerTrustEvaluator? = nil,
        cancellation: TransportCancellation
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.bodyProgress = bodyProgress
        self.serverTrustEvaluator = serverTrustEvaluator
        self.cancellation = cancellation
    }
}

extension HTTPMethod {
    /// Whether RFC 9110 §9.2.2 calls the method idempotent, so that a request may be retried safely.
    var isIdempotent: Bool {
        switch self {
        case .GET, .HEAD, .OPTIONS, .TRACE, .PUT, .DELETE: return true
        default: return false
        }
    }
}
