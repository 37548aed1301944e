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
    /// The body, decompressed when the server sent gzip or deflate. Iterate it once.
    public let body: ResponseBody
    let metricsRecorder: MetricsRecorder

    /// The request's timings and byte counts so far; complete once the body has been read to its end.
    public var metrics: TransportMetrics { self.metricsRecorder.snapshot }
}
