import NIOConcurrencyHelpers
import NIOCore

/// One open HTTP/1.1 connection in the pool and the thread-safe way to drive its
/// ``HTTPClientRequestHandler``.
final class HTTPConnection: Sendable {
    let id: PoolConnectionID
    let channel: any Channel
    private let handler: NIOLoopBound<HTTPClientRequestHandler>
    /// Connection-setup timings, copied into the metrics of the first request only.
    private let setupMetrics: TransportMetrics
    /// The peer as `ip:port`, worked out once: the channel's address is read under a lock and
    /// formatted with `inet_ntop`.
    private let remoteAddress: String?
    private let servedRequests = NIOLockedValueBox(0)

    init(
        id: PoolConnectionID,
        channel: any Channel,
        handler: NIOLoopBound<HTTPClientRequestHandler>,
        setupMetrics: TransportMetrics
    ) {
        self.id = id
        self.channel = channel
        self.handler = handler
        self.setupMetrics = setupMetrics
        self.remoteAddress = channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
    }

    var eventLoop: any EventLoop { self.channel.eventLoop }

    /// Starts `request` and returns its ID on this connection, which names it in every later
    /// call; its response head (or why there is none) goes to `head`, and `ended` is delivered
    /// when the request ends, however. Records whether this connection was reused.
    ///
    /// One hop to the event loop starts the request and watches for its head; the head is then
    /// handed over without a second hop (awaiting an `EventLoopFuture` from another thread
    /// would make one to register its callback).
    func execute(
        _ request: PreparedRequest,
        into head: AwaitedValue<Result<TransportResponse, any Error>>,
        ended: AwaitedValue<Void>? = nil
    ) -> HTTPClientRequestHandler.RequestID {
        let served = self.servedRequests.withLockedValue { count in
            defer { count += 1 }
            return count
        }
        let setup = self.setupMetrics
        let remoteAddress = self.remoteAddress
        request.metrics.record { metrics in
            metrics.isReusedConnection = served > 0
            metrics.remoteAddress = remoteAddress
            if served == 0 {
                metrics.domainLookupStart = setup.domainLookupStart
                metrics.domainLookupEnd = setup.domainLookupEnd
                metrics.connectStart = setup.connectStart
                metrics.connectEnd = setup.connectEnd
                metrics.secureConnectionStart = setup.secureConnectionStart
                metrics.secureConnectionEnd = setup.secureConnectionEnd
            }
        }
        let promise = self.eventLoop.makePromise(of: TransportResponse.self)
        let handler = self.handler
        self.eventLoop.execute {
            promise.futureResult.whenComplete { head.deliver($0) }
            handler.value.start(request, id: served, headPromise: promise, ended: ended)
        }
        return served
    }

    /// A writer for the streamed body of request `id`.
    func bodyWriter(of id: HTTPClientRequestHandler.RequestID) -> RequestBodyWriter {
        RequestBodyWriter { chunk in
            try await self.onEventLoop { $0.writeBodyChunk(chunk, of: id) }
        }
    }

    /// Ends the streamed body of request `id`.
    func finishBody(of id: HTTPClientRequestHandler.RequestID) async throws {
        try await self.onEventLoop { $0.finishBody(of: id) }
    }

    /// Fails request `id` because its body source failed.
    func failBody(_ error: any Error, of id: HTTPClientRequestHandler.RequestID) {
        let handler = self.handler
        self.eventLoop.execute { handler.value.failBody(error, of: id) }
    }

    /// Cancels request `id` if it is still running on this connection.
    func cancel(_ id: HTTPClientRequestHandler.RequestID) {
        let handler = self.handler
        self.eventLoop.execute { handler.value.cancel(id) }
    }

    func close() {
        self.channel.close(promise: nil)
    }

    private func onEventLoop(_ body: @escaping @Sendable (HTTPClientRequestHandler) -> EventLoopFuture<Void>) async throws {
        let handler = self.handler
        try await self.eventLoop.flatSubmit { body(handler.value) }.get()
    }
}
