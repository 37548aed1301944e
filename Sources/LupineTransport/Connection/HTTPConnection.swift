import NIOConcurrencyHelpers
import NIOCore

/// One open connection in the pool and the thread-safe way to drive its requests: the one
/// ``HTTPClientRequestHandler`` of an HTTP/1.1 connection, or the streams of an HTTP/2 one.
final class HTTPConnection: Sendable {
    /// How the connection carries requests.
    enum Requests {
        /// One at a time, through the connection's one handler.
        case http1(NIOLoopBound<HTTPClientRequestHandler>)
        /// Each on a stream of its own.
        case http2(NIOLoopBound<HTTP2Streams>)
    }

    let id: PoolConnectionID
    let channel: any Channel
    private let requests: Requests
    /// Connection-setup timings, copied into the metrics of the first request only (read then:
    /// the connect's end is marked after the HTTP handlers are in place).
    private let setup: MetricsRecorder
    /// Whether the connection goes through a proxy.
    private let isProxied: Bool
    /// How many requests the connection has been given, and the peer as `ip:port`, worked out
    /// once at the first (the channel's address is read under a lock and formatted with
    /// `inet_ntop`; the connection is made before its channel has connected).
    private let served = NIOLockedValueBox((count: 0, remoteAddress: String?.none))

    init(
        id: PoolConnectionID,
        channel: any Channel,
        requests: Requests,
        setup: MetricsRecorder,
        isProxied: Bool
    ) {
        self.id = id
        self.channel = channel
        self.requests = requests
        self.setup = setup
        self.isProxied = isProxied
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
        let channel = self.channel
        let (served, remoteAddress) = self.served.withLockedValue { served in
            defer { served.count += 1 }
            if served.count == 0 {
                served.remoteAddress = channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
            }
            return served
        }
        let setup = served == 0 ? self.setup.snapshot : nil
        let protocolName = self.requests.protocolName
        let isProxied = self.isProxied
        request.metrics.record { metrics in
            metrics.isReusedConnection = served > 0
            metrics.isProxyConnection = isProxied
            metrics.remoteAddress = remoteAddress
            metrics.networkProtocolName = protocolName
            if let setup {
                metrics.domainLookupStart = setup.domainLookupStart
                metrics.domainLookupEnd = setup.domainLookupEnd
                metrics.connectStart = setup.connectStart
                metrics.connectEnd = setup.connectEnd
                metrics.proxyConnectStart = setup.proxyConnectStart
                metrics.proxyConnectEnd = setup.proxyConnectEnd
                metrics.secureConnectionStart = setup.secureConnectionStart
                metrics.secureConnectionEnd = setup.secureConnectionEnd
            }
        }
        let promise = self.eventLoop.makePromise(of: TransportResponse.self)
        let requests = self.requests
        self.eventLoop.execute {
            promise.futureResult.whenComplete { head.deliver($0) }
            switch requests {
            case .http1(let handler):
                handler.value.start(request, id: served, headPromise: promise, ended: ended)
            case .http2(let streams):
                streams.value.start(request, id: served, headPromise: promise, ended: ended)
            }
        }
        return served
    }

    /// A writer for the streamed body of request `id`.
    func bodyWriter(of id: HTTPClientRequestHandler.RequestID) -> RequestBodyWriter {
        RequestBodyWriter { chunk in
            try await self.onEventLoop(id) { $0.writeBodyChunk(chunk, of: id) }
        }
    }

    /// Ends the streamed body of request `id`.
    func finishBody(of id: HTTPClientRequestHandler.RequestID) async throws {
        try await self.onEventLoop(id) { $0.finishBody(of: id) }
    }

    /// Fails request `id` because its body source failed.
    func failBody(_ error: any Error, of id: HTTPClientRequestHandler.RequestID) {
        self.send(to: id) { $0.failBody(error, of: id) }
    }

    /// Cancels request `id` if it is still running on this connection.
    func cancel(_ id: HTTPClientRequestHandler.RequestID) {
        self.send(to: id) { $0.cancel(id) }
    }

    func close() {
        self.channel.close(promise: nil)
    }

    /// Runs `body` on the event loop with the handler of request `id` once it has started, if it
    /// is in flight (an HTTP/1.1 connection's one handler checks the ID itself).
    private func send(to id: HTTPClientRequestHandler.RequestID, _ body: @escaping @Sendable (HTTPClientRequestHandler) -> Void) {
        let requests = self.requests
        self.eventLoop.execute {
            requests.withHandler(of: id) { $0.map(body) }
        }
    }

    /// As ``send(to:_:)``, for a call the caller awaits; a request no longer in flight
    /// fails it as a closed connection would.
    private func onEventLoop(
        _ id: HTTPClientRequestHandler.RequestID,
        _ body: @escaping @Sendable (HTTPClientRequestHandler) -> EventLoopFuture<Void>
    ) async throws {
        let requests = self.requests
        let eventLoop = self.eventLoop
        try await eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
            let done = eventLoop.makePromise(of: Void.self)
            requests.withHandler(of: id) { handler in
                guard let handler else {
                    done.fail(TransportError.connectionClosedBeforeResponse)
                    return
                }
                done.completeWith(body(handler))
            }
            return done.futureResult
        }.get()
    }
}

extension HTTPConnection.Requests {
    /// The protocol's ALPN name.
    var protocolName: String {
        switch self {
        case .http1: "http/1.1"
        case .http2: "h2"
        }
    }

    /// On the event loop: runs `body` with the handler that runs request `id`, once it has started.
    func withHandler(of id: HTTPClientRequestHandler.RequestID, _ body: @escaping (HTTPClientRequestHandler?) -> Void) {
        switch self {
        case .http1(let handler): body(handler.value)
        case .http2(let streams): streams.value.withHandler(of: id, body)
        }
    }
}
