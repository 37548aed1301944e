import NIOCore
import NIOHTTP1

/// Runs one request at a time on a connection: writes the head and body with writability
/// backpressure, hands the response head to its caller and streams the body into a
/// ``ResponseBody``, holding back socket reads while the consumer is not asking for more. It
/// enforces the idle-read and whole-request timeouts and turns every failure into a
/// ``TransportError``.
///
/// Every decision is the ``HTTP1RequestStateMachine``'s: the handler feeds it the channel's
/// events and performs the actions it returns, owning only what the machine must not hold (the
/// head promise, the body stream, timers, the parked body producer's promise).
///
/// All state is confined to the channel's event loop.
final class HTTPClientRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart
    typealias RequestID = HTTP1RequestStateMachine.RequestID

    /// What the handler holds for the request in flight.
    final class Exchange {
        let id: RequestID
        let request: PreparedRequest
        /// Until the response head arrives.
        var headPromise: EventLoopPromise<TransportResponse>?
        /// Delivered when the request ends, however: no body byte can follow (for a request
        /// whose body a source streams).
        let ended: AwaitedValue<Void>?
        /// Once the response head arrived.
        var body: ResponseBodyFeed?
        /// The parked body producer's promise, kept until the channel becomes writable.
        var writabilityWaiter: EventLoopPromise<Void>?
        let bytesReadAtStart: Int
        let bytesWrittenAtStart: Int
        /// Whether the first response byte has been marked in the metrics (once, not per read).
        var responseStarted = false

        init(
            id: RequestID,
            request: PreparedRequest,
            headPromise: EventLoopPromise<TransportResponse>,
            ended: AwaitedValue<Void>?,
            counters: any ByteCounter
        ) {
            self.id = id
            self.request = request
            self.headPromise = headPromise
            self.ended = ended
            self.bytesReadAtStart = counters.bytesRead
            self.bytesWrittenAtStart = counters.bytesWritten
        }
    }

    var machine = HTTP1RequestStateMachine()
    var exchange: Exchange?
    /// The connection's timer for the timeouts (`+Watchdog.swift`), and whether it is this
    /// handler's own (HTTP/1.1) rather than shared by a connection's streams (HTTP/2).
    let watchdog: RequestWatchdog
    private let ownsWatchdog: Bool
    var context: ChannelHandlerContext?
    /// A response head that came in the read being parsed, with the body parts that came after
    /// it, handed to its caller once the read is (``channelReadComplete(context:)``) or its
    /// request ends: the caller's task, woken once, then finds the body parts that came with the
    /// head already there, instead of being woken for the head, then each part, then the end.
    /// A body that ended in that read (all of a small one) is handed over whole, with no stream.
    var headToHandOver: HeldHead?

    /// A response head not yet handed over, and the body parts that followed it.
    struct HeldHead {
        let promise: EventLoopPromise<TransportResponse>
        let head: HTTPResponseHead
        let exchange: Exchange
        var parts: [ByteBuffer] = []
    }
    let eventLoop: any EventLoop
    let counters: any ByteCounter
    let onRequestFinished: (_ reusable: Bool) -> Void

    /// A handler whose timeouts `watchdog` keeps (a stream's, shared), or one of its own.
    init(
        eventLoop: any EventLoop,
        counters: any ByteCounter,
        watchdog: RequestWatchdog? = nil,
        onRequestFinished: @escaping (_ reusable: Bool) -> Void
    ) {
        self.eventLoop = eventLoop
        self.counters = counters
        self.ownsWatchdog = watchdog == nil
        self.watchdog = watchdog ?? RequestWatchdog(eventLoop: eventLoop)
        self.onRequestFinished = onRequestFinished
        if self.ownsWatchdog {
            self.watchdog.fired = { [weak self] in self?.checkTimeouts() }
        }
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        if self.ownsWatchdog {
            self.watchdog.stop()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if self.ownsWatchdog {
            self.watchdog.stop()
        }
        self.perform(self.machine.channelInactive())
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.perform(self.machine.errorCaught(error))
    }

    // MARK: Requests

    /// Starts `request` as request `id`: writes its head (and in-memory body) and completes
    /// `headPromise` with the response head once the read that brought it is parsed, or when the
    /// request ends (``headToHandOver``); delivers `ended` when the request ends.
    func start(
        _ request: PreparedRequest,
        id: RequestID,
        headPromise: EventLoopPromise<TransportResponse>,
        ended: AwaitedValue<Void>?
    ) {
        guard self.context != nil else {
            headPromise.fail(TransportError.connectionClosedBeforeResponse)
            ended?.deliver(())
            return
        }
        let action = self.machine.start(
            id,
            head: request.head,
            body: request.body,
            readTimeout: request.readTimeout,
            now: self.eventLoop.now
        )
        if case .refuseRequest(let error) = action {
            headPromise.fail(error)
            ended?.deliver(())
            return
        }
        self.exchange = Exchange(id: id, request: request, headPromise: headPromise, ended: ended, counters: self.counters)
        self.perform(action)
    }

    /// Cancels request `id` if it is still the one in flight.
    func cancel(_ id: RequestID) {
        self.perform(self.machine.cancel(id))
    }

    // MARK: Reading the response

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let exchange, !exchange.responseStarted {
            exchange.responseStarted = true
            exchange.request.metrics.mark(.responseStart)
        }
        let now = self.eventLoop.now
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.perform(self.machine.receivedHead(head, now: now))
        case .body(let part):
            self.perform(self.machine.receivedBodyPart(part, now: now))
        case .end:
            self.perform(self.machine.receivedEnd())
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.handOverHead()
        context.fireChannelReadComplete()
    }

    /// How far the body of a head being handed over has come.
    enum BodyProgress {
        /// The request goes on: the rest of the body will follow.
        case arriving
        /// The request has ended, with the error it ended with if it failed.
        case ended((any Error)?)
    }

    /// Completes the head promise with the head kept in ``headToHandOver``, if any: with the
    /// body whole (or cut by its error) when the request has ended, otherwise with a body
    /// stream the rest of the body will fill.
    func handOverHead(_ progress: BodyProgress = .arriving) {
        guard let held = self.headToHandOver else { return }
        self.headToHandOver = nil
        let body: ResponseBody
        if case .ended(let error) = progress {
            body = ResponseBody(arrived: held.parts, error: error)
        } else {
            let exchange = held.exchange
            let loopBoundSelf = NIOLoopBound(self, eventLoop: self.eventLoop)
            let eventLoop = self.eventLoop
            let id = exchange.id
            let (feed, stream) = ResponseBodyFeed.make(
                onDemand: { eventLoop.execute { loopBoundSelf.value.consumerDemand(id) } },
                onAbandon: { eventLoop.execute { loopBoundSelf.value.cancel(id) } }
            )
            exchange.body = feed
            for part in held.parts where feed.yield(part) {
                self.machine.consumerBufferFull(id)
            }
            body = stream
        }
        let response = TransportResponse(
            status: held.head.status,
            version: held.head.version,
            headers: held.head.headers,
            url: held.exchange.request.url,
            body: body,
            metricsRecorder: held.exchange.request.metrics
        )
        held.promise.succeed(response)
    }

    func read(context: ChannelHandlerContext) {
        self.perform(self.machine.read())
    }

    /// The consumer of request `id` wants more of the body.
    func consumerDemand(_ id: RequestID) {
        self.perform(self.machine.consumerDemand(id))
    }

    /// Keeps the response `head` until the read that brought it is parsed (or its request ends).
    func forwardHead(_ head: HTTPResponseHead, stopUpload: Bool) {
        guard let exchange, let promise = exchange.headPromise else { return }
        exchange.headPromise = nil
        if stopUpload {
            exchange.writabilityWaiter?.fail(TransportError.cancelled)
            exchange.writabilityWaiter = nil
        }
        self.headToHandOver = HeldHead(promise: promise, head: head, exchange: exchange)
    }

    /// Hands a body part to the consumer, or keeps it with a head not yet handed over; a full
    /// buffer holds the next reads back.
    func forwardBodyPart(_ part: ByteBuffer, totalReceived: Int) {
        guard let exchange else { return }
        exchange.request.metrics.record { $0.bodyBytesReceived = totalReceived }
        if self.headToHandOver != nil {
            self.headToHandOver?.parts.append(part)
        } else if let feed = exchange.body, feed.yield(part) {
            self.machine.consumerBufferFull(exchange.id)
        }
    }
}
