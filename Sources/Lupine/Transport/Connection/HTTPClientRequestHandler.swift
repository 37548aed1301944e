import NIOCore
import NIOHTTP1

/// Runs one request at a time on a connection: writes the head and body with writability
/// backpressure, hands the response head to its caller and streams the body into a
/// ``ResponseBody``, holding back socket reads while the consumer is not asking for more.
/// It enforces the idle-read and whole-request timeouts and turns every failure into a
/// ``TransportError``.
///
/// All state is confined to the channel's event loop.
final class HTTPClientRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    enum RequestPhase {
        case sendingBody(declaredLength: Int?, sent: Int)
        case sent
    }

    enum ResponsePhase {
        case awaitingHead(EventLoopPromise<TransportResponse>)
        case streamingBody(ResponseBody.Producer.Source, received: Int, expected: Int?)
        case complete
    }

    /// One request in flight.
    final class Execution {
        let request: PreparedRequest
        var requestPhase: RequestPhase
        var responsePhase: ResponsePhase
        var keepAlive = true
        var readTimer: Scheduled<Void>?
        /// The last time the server sent a byte or took one of ours.
        var lastActivity = NIODeadline.now()
        var deadlineTimer: Scheduled<Void>?
        var writabilityWaiter: EventLoopPromise<Void>?
        let bytesReadAtStart: Int
        let bytesWrittenAtStart: Int

        init(request: PreparedRequest, headPromise: EventLoopPromise<TransportResponse>, counters: ByteCountingHandler) {
            self.request = request
            self.requestPhase = .sent
            self.responsePhase = .awaitingHead(headPromise)
            self.bytesReadAtStart = counters.bytesRead
            self.bytesWrittenAtStart = counters.bytesWritten
        }
    }

    enum State {
        case idle
        case executing(Execution)
        /// The connection is unusable; later calls fail with this error.
        case closed(TransportError)
    }

    var state: State = .idle
    var context: ChannelHandlerContext?
    let eventLoop: any EventLoop
    /// The consumer has enough buffered; a `read` is held back until it asks for more.
    var readsPaused = false
    var heldRead = false
    let counters: ByteCountingHandler
    let onRequestFinished: (_ reusable: Bool) -> Void

    init(
        eventLoop: any EventLoop,
        counters: ByteCountingHandler,
        onRequestFinished: @escaping (_ reusable: Bool) -> Void
    ) {
        self.eventLoop = eventLoop
        self.counters = counters
        self.onRequestFinished = onRequestFinished
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .executing(let execution) = self.state {
            switch execution.responsePhase {
            case .awaitingHead:
                self.fail(.connectionClosedBeforeResponse)
            case .streamingBody(_, let received, let expected):
                self.fail(.connectionClosedMidBody(receivedBytes: received, expectedBytes: expected))
            case .complete:
                self.fail(.connectionClosedBeforeResponse)
            }
        }
        self.state = .closed(.connectionClosedBeforeResponse)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard case .executing(let execution) = self.state else {
            context.close(promise: nil)
            return
        }
        self.fail(self.transportError(for: error, during: execution.responsePhase))
    }

    // MARK: Starting a request

    /// Writes `request`'s head (and in-memory body) and completes `headPromise` when the response head arrives.
    func start(_ request: PreparedRequest, headPromise: EventLoopPromise<TransportResponse>) {
        guard let context, case .idle = self.state else {
            if case .closed(let error) = self.state {
                headPromise.fail(error)
            } else {
                headPromise.fail(TransportError.connectionClosedBeforeResponse)
            }
            return
        }
        let execution = Execution(request: request, headPromise: headPromise, counters: self.counters)
        self.state = .executing(execution)
        if let deadline = request.deadline {
            execution.deadlineTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline.at) {
                self.fail(.requestTimeout(timeout: deadline.timeout))
            }
        }

        var head = request.head
        switch request.body {
        case .none:
            if head.method == .POST || head.method == .PUT || head.method == .PATCH {
                head.headers.replaceOrAdd(name: "Content-Length", value: "0")
            }
        case .bytes(let bytes):
            head.headers.replaceOrAdd(name: "Content-Length", value: String(bytes.readableBytes))
        case .streamed(let length?):
            head.headers.replaceOrAdd(name: "Content-Length", value: String(length))
        case .streamed(nil):
            head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        }
        self.scheduleReadTimer(execution, in: request.readTimeout, context: context)
        let metrics = request.metrics
        let headWritten = context.eventLoop.makePromise(of: Void.self)
        headWritten.futureResult.whenSuccess { metrics.mark(\.requestHeadSent) }
        context.write(Self.wrapOutboundOut(.head(head)), promise: headWritten)

        switch request.body {
        case .none:
            self.writeEnd(execution, context: context)
        case .bytes(let bytes):
            self.writeBody(bytes, of: request, context: context)
            self.writeEnd(execution, context: context)
        case .streamed(let length):
            execution.requestPhase = .sendingBody(declaredLength: length, sent: 0)
            context.flush()
        }
    }

    // MARK: Reading the response

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .executing(let execution) = self.state else {
            // A response nobody asked for: the connection's framing cannot be trusted any more.
            context.close(promise: nil)
            return
        }
        execution.request.metrics.mark(\.responseStart)
        execution.lastActivity = .now()

        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.receiveHead(head, execution: execution, context: context)
        case .body(let chunk):
            guard case .streamingBody(let source, let received, let expected) = execution.responsePhase else { return }
            let total = received + chunk.readableBytes
            execution.responsePhase = .streamingBody(source, received: total, expected: expected)
            execution.request.metrics.record { $0.bodyBytesReceived = total }
            if source.yield(chunk) == .stopProducing {
                self.readsPaused = true
            }
        case .end:
            guard case .streamingBody(let source, _, _) = execution.responsePhase else { return }
            execution.responsePhase = .complete
            // Release the connection before the consumer learns the body ended, so that its next
            // request finds the connection idle instead of opening another.
            self.finish(execution, reusable: execution.keepAlive)
            source.finish()
        }
    }

    func receiveHead(_ head: HTTPResponseHead, execution: Execution, context: ChannelHandlerContext) {
        guard case .awaitingHead(let promise) = execution.responsePhase else { return }
        execution.keepAlive = head.isKeepAlive && execution.request.head.isKeepAlive
        if case .sendingBody = execution.requestPhase {
            // The server answered before the request body was complete: stop sending (the server
            // has decided), and never reuse the connection, whose request framing is now broken.
            execution.keepAlive = false
            execution.requestPhase = .sent
            execution.writabilityWaiter?.fail(TransportError.cancelled)
            execution.writabilityWaiter = nil
        }
        let expected = head.headers.first(name: "Content-Length").flatMap(Int.init)
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let token = execution.request.metrics
        let delegate = ResponseBodyDelegate(
            onProduceMore: { eventLoop.execute { loopBoundSelf.value.resumeReads(token: token) } },
            onTerminate: { eventLoop.execute { loopBoundSelf.value.consumerStopped(token: token) } }
        )
        let sequence = ResponseBody.Producer.makeSequence(
            elementType: ByteBuffer.self,
            failureType: (any Error).self,
            backPressureStrategy: .init(lowWatermark: 4, highWatermark: 16),
            finishOnDeinit: false,
            delegate: delegate
        )
        execution.responsePhase = .streamingBody(sequence.source, received: 0, expected: expected)
        promise.succeed(
            TransportResponse(
                status: head.status,
                version: head.version,
                headers: head.headers,
                url: execution.request.url,
                body: ResponseBody(producer: sequence.sequence),
                metricsRecorder: execution.request.metrics
            )
        )
    }

    func read(context: ChannelHandlerContext) {
        if self.readsPaused {
            self.heldRead = true
        } else {
            context.read()
        }
    }

    /// The consumer of the request identified by `token` wants more.
    func resumeReads(token: MetricsRecorder) {
        guard self.isRunning(token) else { return }
        self.resumeReads()
    }

    func resumeReads() {
        self.readsPaused = false
        if self.heldRead, let context {
            self.heldRead = false
            context.read()
        }
    }

    /// The consumer of the request identified by `token` dropped the body before its end: cancel.
    func consumerStopped(token: MetricsRecorder) {
        guard self.isRunning(token) else { return }
        self.fail(.cancelled)
    }
}
