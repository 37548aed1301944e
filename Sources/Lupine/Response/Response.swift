import Foundation

/// The outcome of a task: the request as sent, the response head, the body bytes, the serialized
/// result, the transport metrics and the redirects followed.
public struct Response<Value: Sendable>: Sendable {
    /// The request as finally sent (after redirects).
    public let request: Request
    /// The response head, or `nil` when no response arrived.
    public let head: ResponseHead?
    /// The body bytes (empty when none arrived).
    public let data: [UInt8]
    /// The serialized value or the error.
    public let result: Result<Value, LupineError>
    /// The transport's metrics of the final request.
    public let metrics: TransportMetrics?
    /// The URLs redirected through, in order, not counting the final one.
    public let redirectChain: [URL]

    /// Creates a response.
    public init(
        request: Request,
        head: ResponseHead?,
        data: [UInt8],
        result: Result<Value, LupineError>,
        metrics: TransportMetrics?,
        redirectChain: [URL]
    ) {
        self.request = request
        self.head = head
        self.data = data
        self.result = result
        self.metrics = metrics
        self.redirectChain = redirectChain
    }

    /// The value, or `nil` on failure.
    public var value: Value? { try? self.result.get() }
    /// The error, or `nil` on success.
    public var error: LupineError? {
        if case .failure(let error) = self.result { return error }
        return nil
    }
}
