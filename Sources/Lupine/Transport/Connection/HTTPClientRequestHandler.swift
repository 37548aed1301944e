import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL

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

    private enum RequestPhase {
        case sendingBody(declaredLength: Int?, sent: Int)
        case sent
    }

    private enum ResponsePhase {
        case awaitingHead(EventLoopPromise<TransportResponse>)
        case streamingBody(ResponseBody.Producer.Source, received: Int, expected: Int?)
        case complete
    }

    /// One request in flight.
    private final class Execution {
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

    private enum State {
        case idle
        case executing(Execution)
        /// The connection is unusable; later calls fail with this error.
        case closed(TransportError)
    }

    private var state: State = .idle
    private var context: ChannelHandlerContext?
    private let eventLoop: any EventLoop
    /// The consumer has enough buffered; a `read` is held back until it asks for more.
    private var readsPaused = false
    private var heldRead = false
    private let counters: ByteCountingHandler
    private let onRequestFinished: (_ reusable: Bool) -> Void

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

    // MARK: Streaming the request body

    /// Writes one body chunk; the returned future completes when the channel can take more.
    func writeBodyChunk(_ chunk: ByteBuffer) -> EventLoopFuture<Void> {
        guard let context else { return self.failedFuture() }
        guard case .executing(let execution) = self.state,
            case .sendingBody(let declared, let sent) = execution.requestPhase
        else {
            return self.failedFuture()
        }
        let total = sent + chunk.readableBytes
        if let declared, total > declared {
            self.fail(.requestBodyLengthMismatch(declared: declared, produced: total))
            return self.failedFuture()
        }
        execution.requestPhase = .sendingBody(declaredLength: declared, sent: total)
        self.writeBody(chunk, of: execution.request, context: context)
        context.flush()
        if context.channel.isWritable {
            return context.eventLoop.makeSucceededVoidFuture()
        }
        let waiter = context.eventLoop.makePromise(of: Void.self)
        execution.writabilityWaiter = waiter
        return waiter.futureResult
    }

    /// Writes body bytes. They count as sent (in the metrics, and for the request's progress
    /// closure) once the socket has taken them, not when they are queued.
    private func writeBody(_ bytes: ByteBuffer, of request: PreparedRequest, context: ChannelHandlerContext) {
        let count = bytes.readableBytes
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenSuccess {
            var total = 0
            request.metrics.record { metrics in
                metrics.bodyBytesSent += count
                total = metrics.bodyBytesSent
            }
            request.bodyProgress?(total)
        }
        context.write(Self.wrapOutboundOut(.body(.byteBuffer(bytes))), promise: written)
    }

    /// Ends the streamed body, checking it produced its declared length.
    func finishBody() -> EventLoopFuture<Void> {
        guard let context else { return self.failedFuture() }
        guard case .executing(let execution) = self.state,
            case .sendingBody(let declared, let sent) = execution.requestPhase
        else {
            return self.failedFuture()
        }
        if let declared, sent != declared {
            self.fail(.requestBodyLengthMismatch(declared: declared, produced: sent))
            return self.failedFuture()
        }
        self.writeEnd(execution, context: context)
        return context.eventLoop.makeSucceededVoidFuture()
    }

    /// The body source of the request identified by `token` failed; that request fails with it.
    func failBody(_ error: any Error, token: MetricsRecorder) {
        guard self.isRunning(token), case .executing(let execution) = self.state,
            case .sendingBody = execution.requestPhase
        else { return }
        switch error {
        case let error as TransportError:
            self.fail(error)
        case is CancellationError:
            self.fail(.cancelled)
        default:
            self.fail(.requestBodyFailed(underlying: error))
        }
    }

    /// Cancels the request identified by `token` if it is still the one in flight.
    func cancel(token: MetricsRecorder) {
        guard self.isRunning(token) else { return }
        self.fail(.cancelled)
    }

    /// Whether the request in flight is the one whose metrics recorder is `token`. Asynchronous
    /// cancels and failures carry it so they never hit a later request on a reused connection.
    private func isRunning(_ token: MetricsRecorder) -> Bool {
        guard case .executing(let execution) = self.state else { return false }
        return execution.request.metrics === token
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, case .executing(let execution) = self.state,
            let waiter = execution.writabilityWaiter
        {
            execution.writabilityWaiter = nil
            execution.lastActivity = .now()
            waiter.succeed()
        }
        context.fireChannelWritabilityChanged()
    }

    private func writeEnd(_ execution: Execution, context: ChannelHandlerContext) {
        execution.requestPhase = .sent
        let metrics = execution.request.metrics
        let endWritten = context.eventLoop.makePromise(of: Void.self)
        endWritten.futureResult.whenSuccess { metrics.mark(\.requestBodySent) }
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: endWritten)
        if case .complete = execution.responsePhase {
            self.finish(execution, reusable: execution.keepAlive)
        }
    }

    private func failedFuture() -> EventLoopFuture<Void> {
        if case .closed(let error) = self.state {
            return self.eventLoop.makeFailedFuture(error)
        }
        return self.eventLoop.makeFailedFuture(TransportError.cancelled)
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

    private func receiveHead(_ head: HTTPResponseHead, execution: Execution, context: ChannelHandlerContext) {
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
    private func resumeReads(token: MetricsRecorder) {
        guard self.isRunning(token) else { return }
        self.resumeReads()
    }

    private func resumeReads() {
        self.readsPaused = false
        if self.heldRead, let context {
            self.heldRead = false
            context.read()
        }
    }

    /// The consumer of the request identified by `token` dropped the body before its end: cancel.
    private func consumerStopped(token: MetricsRecorder) {
        guard self.isRunning(token) else { return }
        self.fail(.cancelled)
    }

    // MARK: Timers

    /// Schedules the idle check: the request fails when for `readTimeout` the server neither sent
    /// a byte nor took one of ours. Activity only moves ``Execution/lastActivity``; the timer
    /// re-schedules itself for the remainder, so a busy connection costs no timer churn. Silence
    /// that is ours (a consumer holding reads back, a body source slow to produce) does not count.
    private func scheduleReadTimer(_ execution: Execution, in delay: TimeAmount?, context: ChannelHandlerContext) {
        guard let timeout = execution.request.readTimeout, let delay else { return }
        execution.readTimer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            let idle = NIODeadline.now() - execution.lastActivity
            if idle < timeout {
                self.scheduleReadTimer(execution, in: timeout - idle, context: context)
                return
            }
            var silenceIsOurs = self.readsPaused
            if case .sendingBody = execution.requestPhase, execution.writabilityWaiter == nil {
                silenceIsOurs = true
            }
            if silenceIsOurs {
                execution.lastActivity = .now()
                self.scheduleReadTimer(execution, in: timeout, context: context)
            } else {
                self.fail(.readTimeout(timeout: timeout))
            }
        }
    }

    // MARK: Ending a request

    private func finish(_ execution: Execution, reusable: Bool) {
        guard case .executing(let current) = self.state, current === execution else { return }
        self.endTimers(execution)
        self.recordByteCounts(execution)
        execution.request.metrics.mark(\.responseEnd)
        execution.writabilityWaiter?.fail(TransportError.cancelled)
        execution.writabilityWaiter = nil
        if reusable {
            self.state = .idle
        } else {
            self.state = .closed(.connectionClosedBeforeResponse)
            self.context?.close(promise: nil)
        }
        self.resumeReads()
        self.onRequestFinished(reusable)
    }

    private func fail(_ error: TransportError) {
        guard case .executing(let execution) = self.state else { return }
        self.state = .closed(error)
        self.endTimers(execution)
        self.recordByteCounts(execution)
        execution.request.metrics.mark(\.responseEnd)
        execution.writabilityWaiter?.fail(error)
        execution.writabilityWaiter = nil
        switch execution.responsePhase {
        case .awaitingHead(let promise):
            promise.fail(error)
        case .streamingBody(let source, _, _):
            source.finish(error)
        case .complete:
            break
        }
        execution.responsePhase = .complete
        self.readsPaused = false
        self.context?.close(promise: nil)
        self.onRequestFinished(false)
    }

    private func endTimers(_ execution: Execution) {
        execution.readTimer?.cancel()
        execution.deadlineTimer?.cancel()
        execution.readTimer = nil
        execution.deadlineTimer = nil
    }

    private func recordByteCounts(_ execution: Execution) {
        let sent = self.counters.bytesWritten - execution.bytesWrittenAtStart
        let received = self.counters.bytesRead - execution.bytesReadAtStart
        execution.request.metrics.record {
            $0.bytesSent = sent
            $0.bytesReceived = received
        }
    }

    private func transportError(for error: any Error, during phase: ResponsePhase) -> TransportError {
        switch error {
        case let error as TransportError:
            return error
        case is NIOHTTPDecompression.DecompressionError, is NIOHTTPDecompression.ExtraDecompressionError:
            return .decompressionFailed(reason: TransportErrorWords.decompressionFailure(error))
        case HTTPParserError.invalidEOFState:
            return self.closedError(during: phase)
        case let error as HTTPParserError:
            return .invalidResponse(reason: TransportErrorWords.parserFailure(error))
        case is IOError, NIOSSLError.uncleanShutdown, ChannelError.eof, ChannelError.ioOnClosedChannel:
            return self.closedError(during: phase)
        default:
            return .invalidResponse(reason: "the connection failed: \(TransportErrorWords.describe(error))")
        }
    }

    private func closedError(during phase: ResponsePhase) -> TransportError {
        if case .streamingBody(_, let received, let expected) = phase {
            return .connectionClosedMidBody(receivedBytes: received, expectedBytes: expected)
        }
        return .connectionClosedBeforeResponse
    }
}

@available(*, unavailable)
extension HTTPClientRequestHandler: Sendable {}
