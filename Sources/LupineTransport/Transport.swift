/// The bottom layer of Lupine: something that sends one HTTP request and streams back its response.
///
/// The session layer talks to this protocol only; ``NIOTransport`` is the SwiftNIO engine behind it.
/// A transport knows nothing of serializers, tasks or policies beyond the ``ServerTrustEvaluator``
/// it is configured with.
public protocol Transport: Sendable {
    /// Sends `request` and returns as soon as the response head has arrived.
    ///
    /// The body follows as ``TransportResponse/body``, an `AsyncSequence` with backpressure: reading
    /// it slowly slows the socket.
    ///
    /// Cancellation comes by two routes, and a transport must stop on both with
    /// ``TransportError/cancelled``: the calling Swift task being cancelled, and the request's
    /// ``TransportRequest/cancellation`` handle being cancelled, whichever step the request is in
    /// (refused at once when the handle is already cancelled, waiting for a connection, waiting
    /// for the head, or while the body streams). A session runs its tasks in its callers' Swift
    /// tasks and cancels them through the handle only: a transport that ignores the handle leaves
    /// `SessionTask.cancel()` without effect. A transport that wraps another passes the handle
    /// on, in the requests it forwards or builds.
    func execute(_ request: TransportRequest) async throws -> TransportResponse

    /// Closes every connection and fails queued and later requests with ``TransportError/shutdown``.
    func shutdown() async
}
