/// The bottom layer of Lupine: something that sends one HTTP request and streams back its response.
///
/// The session layer talks to this protocol only; ``NIOTransport`` is the SwiftNIO engine behind it.
/// A transport knows nothing of serializers, tasks or policies beyond the ``ServerTrustEvaluator``
/// it is configured with.
public protocol Transport: Sendable {
    /// Sends `request` and returns as soon as the response head has arrived.
    ///
    /// The body follows as ``TransportResponse/body``, an `AsyncSequence` with backpressure: reading
    /// it slowly slows the socket. Cancelling the calling task cancels the request.
    func execute(_ request: TransportRequest) async throws -> TransportResponse

    /// Closes every connection and fails queued and later requests with ``TransportError/shutdown``.
    func shutdown() async
}
