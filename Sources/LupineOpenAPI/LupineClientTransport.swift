import Foundation
import HTTPTypes
import Lupine
import OpenAPIRuntime

/// A `ClientTransport` for swift-openapi-runtime that sends a generated client's requests through
/// an `HTTPSessionManager`, so they get everything the session gives its own requests: its
/// security policy, interceptors and retry policy, redirect and authentication handling, HTTP
/// cache, cookies, metrics and events.
///
/// ```swift
/// let manager = HTTPSessionManager()
/// let client = Client(serverURL: serverURL, transport: LupineClientTransport(manager: manager))
/// ```
///
/// Bodies stream both ways. A request body is read from its `HTTPBody` only as fast as the
/// socket takes it; a response body is handed to the client chunk by chunk as it arrives, and the
/// next chunk is read from the socket only once the client asks for it, so a body of any size
/// passes with flat memory. The one exception is a small request body that can be read more than
/// once (`iterationBehavior == .multiple`, with a known length of at most
/// ``maximumBufferedRequestBodyLength`` bytes, as the JSON bodies of generated clients are): it is
/// read into memory first, so that the session can send it again for a retry, a redirect or an
/// authentication challenge.
///
/// The request goes to the `baseURL` the client passes (its server URL) followed by the
/// request's path and query; the manager's own `HTTPSessionManager.baseURL` is not used. The
/// manager's `HTTPSessionManager.requestSerializer` gives the request its timeout, cache
/// policy, cookie handling and the default header fields the request does not set itself
/// (`User-Agent`, `Accept-Language`, an `Authorization` set with
/// `HTTPRequestSerializer.setAuthorizationHeaderField(username:password:)`).
///
/// Every status is delivered to the client, which decides what is documented. Failures are
/// thrown as `LupineError` (which the runtime wraps in its `ClientError`), and cancelling the
/// calling Swift task, or the task reading the response body, cancels the Lupine task.
public struct LupineClientTransport: ClientTransport {
    /// The session the requests run on.
    public let manager: HTTPSessionManager
    /// The longest request body, in bytes, that is read into memory before it is sent when it
    /// can be read more than once; longer bodies, and bodies that can be read only once, stream.
    /// 1 MiB by default; 0 streams every body but an empty one (and then no request with a body
    /// is sent twice).
    public var maximumBufferedRequestBodyLength: Int

    /// Creates a transport that sends requests through `manager`.
    public init(manager: HTTPSessionManager, maximumBufferedRequestBodyLength: Int = 1 << 20) {
        self.manager = manager
        self.maximumBufferedRequestBodyLength = maximumBufferedRequestBodyLength
    }

    /// Sends `request` with `body` to `baseURL` and returns the response as soon as its head has
    /// arrived, with a body that streams the rest.
    ///
    /// - Throws: `LupineError`: `LupineError.invalidURL(_:)` when `baseURL` and the request's
    ///   path do not make a URL, `LupineError.invalidHeader(name:reason:)` for a header field
    ///   whose value is not ASCII, `LupineError.cancelled` when the calling task is cancelled,
    ///   and whatever the session's task fails with before the response head arrives.
    public func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let lupineRequest = try await self.makeRequest(request, body: body, baseURL: baseURL)
        let stream = ResponseStream()
        let manager = self.manager
        stream.run { () async throws(LupineError) -> Response<Void> in
            try await manager.stream(
                lupineRequest,
                receiveHead: { head in stream.receive(head) },
                receiveChunk: { chunk in try await stream.offer(chunk) }
            )
        }
        let head = try await withTaskCancellationHandler {
            try await stream.head()
        } onCancel: {
            stream.cancel()
        }
        do {
            let response = try HTTPResponse(head)
            return (response, HTTPBody(ResponseBodySequence(stream), length: Self.length(of: head, for: request), iterationBehavior: .single))
        } catch {
            stream.cancel()
            throw error
        }
    }

    /// The body's length: none for a `HEAD` request and a `204` or `304`, whatever the head says;
    /// the `Content-Length` of a body delivered as it came; unknown for a body the session
    /// inflates (its `Content-Length` counts the compressed bytes) or one without the field.
    private static func length(of head: ResponseHead, for request: HTTPRequest) -> HTTPBody.Length {
        if request.method == .head || head.statusCode == 204 || head.statusCode == 304 {
            return .known(0)
        }
        let encoding = head.headers.first(name: "Content-Encoding")
        guard encoding == nil || encoding?.lowercased() == "identity",
            let declared = head.headers.first(name: "Content-Length"),
            let length = Int64(declared), length >= 0
        else {
            return .unknown
        }
        return .known(length)
    }
}
