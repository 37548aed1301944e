import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// The requests of one HTTP/2 connection, each on a stream of its own.
///
/// A request's stream channel holds an ``HTTP2StreamCodec`` and the same
/// ``HTTPClientRequestHandler`` an HTTP/1.1 connection has: the request's head, body,
/// backpressure, timeouts and failures follow the same state machine, one stream at a time. A
/// consumer that stops reading holds back only its own stream's reads, and so only that stream's
/// flow-control window.
///
/// All state is confined to the connection's event loop.
final class HTTP2Streams {
    typealias RequestID = HTTPClientRequestHandler.RequestID

    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let channel: any Channel
    private let scheme: PoolKey.Scheme
    private let decompressionLimit: DecompressionLimit?
    /// Called once per request, when it ends, with whether the connection may carry another.
    private let onStreamFinished: (_ connectionIsUsable: Bool) -> Void
    /// The handlers of the requests in flight.
    private var handlers: [RequestID: HTTPClientRequestHandler] = [:]
    /// Requests whose stream is being opened, and what waits to reach their handler (a body
    /// writer, a cancel): run once the request has started, or with `nil` if its stream failed.
    private var opening: [RequestID: [(HTTPClientRequestHandler?) -> Void]] = [:]
    /// Once the server said it takes no new streams (GOAWAY), the last one it processed: the
    /// connection closes with its last stream, and the streams above it are sent again.
    private var lastProcessedStream: HTTP2StreamID?
    private var isGoingAway: Bool { self.lastProcessedStream != nil }
    /// The streams' one timer for their timeouts.
    private let watchdog: RequestWatchdog

    init(
        multiplexer: NIOHTTP2Handler.StreamMultiplexer,
        channel: any Channel,
        scheme: PoolKey.Scheme,
        decompressionLimit: DecompressionLimit?,
        onStreamFinished: @escaping (_ connectionIsUsable: Bool) -> Void
    ) {
        self.multiplexer = multiplexer
        self.channel = channel
        self.scheme = scheme
        self.decompressionLimit = decompressionLimit
        self.onStreamFinished = onStreamFinished
        self.watchdog = RequestWatchdog(eventLoop: channel.eventLoop)
        self.watchdog.fired = { [weak self] in
            guard let self else { return }
            // Over a copy: a check that fails a request removes its handler.
            for handler in self.handlers.values { handler.checkTimeouts() }
        }
        let watchdog = NIOLoopBound(self.watchdog, eventLoop: channel.eventLoop)
        channel.closeFuture.whenComplete { _ in watchdog.value.stop() }
    }

    /// Opens a stream for `request` and starts it there, as ``HTTPClientRequestHandler/start(_:id:headPromise:ended:)``.
    func start(
        _ request: PreparedRequest,
        id: RequestID,
        headPromise: EventLoopPromise<TransportResponse>,
        ended: AwaitedValue<Void>?
    ) {
        guard !self.isGoingAway else {
            // The pool hears of the GOAWAY on its own lock, after this connection was handed out.
            headPromise.fail(TransportError.requestNotProcessed(reason: "it went away (GOAWAY) as the request came"))
            ended?.deliver(())
            self.onStreamFinished(false)
            return
        }
        let eventLoop = self.channel.eventLoop
        let this = NIOLoopBound(self, eventLoop: eventLoop)
        let opened = eventLoop.makePromise(of: (any Channel).self)
        self.opening[id] = []
        self.multiplexer.createStreamChannel(promise: opened) { stream in
            stream.eventLoop.makeCompletedFuture {
                try this.value.addHandlers(of: id, to: stream)
            }
        }
        opened.futureResult.assumeIsolated().whenComplete { result in
            let streams = this.value
            let waiting = streams.opening.removeValue(forKey: id) ?? []
            // A GOAWAY may come while the stream opens: the request then never goes out.
            guard case .success = result, let handler = streams.handlers[id], !streams.isGoingAway else {
                streams.handlers[id] = nil
                if case .success(let stream) = result {
                    stream.close(promise: nil)
                }
                headPromise.fail(
                    streams.isGoingAway
                        ? TransportError.requestNotProcessed(reason: "it went away (GOAWAY) as the request's stream opened")
                        : TransportError.connectionClosedBeforeResponse
                )
                ended?.deliver(())
                for body in waiting { body(nil) }
                streams.finished(id)
                return
            }
            handler.start(request, id: id, headPromise: headPromise, ended: ended)
            for body in waiting { body(handler) }
        }
    }

    private func addHandlers(of id: RequestID, to stream: any Channel) throws {
        let sync = stream.pipeline.syncOperations
        let this = NIOLoopBound(self, eventLoop: stream.eventLoop)
        let codec = HTTP2StreamCodec(scheme: self.scheme, decompressionLimit: self.decompressionLimit) {
            this.value.lastProcessedStream
        }
        try sync.addHandler(codec)
        let handler = HTTPClientRequestHandler(eventLoop: stream.eventLoop, counters: codec, watchdog: self.watchdog) { _ in
            // Whatever the stream's exchange says of reuse, it ends with the stream.
            this.value.finished(id)
        }
        try sync.addHandler(handler)
        self.handlers[id] = handler
    }

    private func finished(_ id: RequestID) {
        self.handlers[id] = nil
        let usable = self.channel.isActive && !self.isGoingAway
        if self.isGoingAway, self.handlers.isEmpty, self.opening.isEmpty {
            self.channel.close(promise: nil)
        }
        self.onStreamFinished(usable)
    }

    /// The server takes no new streams, and processed none above `lastProcessedStream`: the
    /// ones in flight finish, then the connection closes.
    func goingAway(lastProcessedStream: HTTP2StreamID) {
        self.lastProcessedStream = min(lastProcessedStream, self.lastProcessedStream ?? .maxID)
        if self.handlers.isEmpty, self.opening.isEmpty {
            self.channel.close(promise: nil)
        }
    }

    /// Runs `body` with the handler of request `id` once the request has started on its stream
    /// (at once if it has), or with `nil` if it is not in flight.
    func withHandler(of id: RequestID, _ body: @escaping (HTTPClientRequestHandler?) -> Void) {
        if self.opening[id] != nil {
            self.opening[id]?.append(body)
        } else {
            body(self.handlers[id])
        }
    }
}

@available(*, unavailable)
extension HTTP2Streams: Sendable {}
