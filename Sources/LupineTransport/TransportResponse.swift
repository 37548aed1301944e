import Foundation
import NIOCore
import NIOHTTP1

/// A response head and its streamed body.
public struct TransportResponse: Sendable {
    /// The status line's code and reason.
    public let status: HTTPResponseStatus
    /// The HTTP version the server answered with.
    public let version: HTTPVersion
    /// The response header fields.
    public let headers: HTTPHeaders
    /// The URL this response answers.
    public let url: URL
    /// The body, decoded when the server sent it in a ``ContentCoding``. Iterate it once.
    public let body: ResponseBody
    let metricsRecorder: MetricsRecorder

    init(status: HTTPResponseStatus, version: HTTPVersion, headers: HTTPHeaders, url: URL, body: ResponseBody, metricsRecorder: MetricsRecorder) {
        self.status = status
        self.version = version
        self.headers = headers
        self.url = url
        self.body = body
        self.metricsRecorder = metricsRecorder
    }

    /// A response made by a ``Transport`` that is not a network connection (a cache, recorded
    /// responses, a test double); its ``metrics`` are empty.
    public init(status: HTTPResponseStatus, version: HTTPVersion = .http1_1, headers: HTTPHeaders, url: URL, body: ResponseBody) {
        self.init(status: status, version: version, headers: headers, url: url, body: body, metricsRecorder: MetricsRecorder())
    }

    /// The request's timings and byte counts so far; complete once the body has been read to its end.
    public var metrics: TransportMetrics { self.metricsRecorder.snapshot }
}
