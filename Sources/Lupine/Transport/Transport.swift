/// The bottom layer of Lupine: something that sends one HTTP request and streams back its response.
///
/// The session layer talks to this protocol only; ``NIOTransport`` is the SwiftNIO engine behind it.
/// A transport knows nothing of serializers, tasks or policies beyond the ``ServerTrustEvaluator``
/// it is configured with.
public protocol Transport: Sendable {
    /// Sends `request` and returns as soon as the response head has arrived.
    ///
    /// The body follows as ``TransportResponse/body``, an `AsyncSequence` with backpressure: reading
    /// it slowly slows the socket. Cancelling the calling task cancels the request; so does the
    /// request's ``TransportRequest/cancellation`` handle when ``honorsCancellationHandle``.
    func execute(_ request: TransportRequest) async throws -> TransportResponse

    /// Whether ``execute(_:)`` and the response body stop with ``TransportError/cancelled`` when
    /// the request's ``TransportRequest/cancellation`` handle is cancelled, not only when the
    /// calling Swift task is. A session runs the tasks of its async verbs in the caller's Swift
    /// task (no thread hand-off) only on a transport that does; on any other, each task gets a
    /// Swift task of its own, so that ``SessionTask/cancel()`` can cancel it. `false` unless a
    /// transport says otherwise.
    var honorsCancellationHandle: Bool { get }

    /// Closes every connection and fails queued and later requests with ``TransportError/shutdown``.
    func shutdown() async
}

extension Transport {
    public var honorsCancellationHandle: Bool { false }
}
