import NIOCore
import NIOHTTP2

/// Reads what an HTTP/2 server says about the whole connection (the frames of stream 0 that
/// NIOHTTP2 passes on): how many streams it takes at once, from its first SETTINGS on, and a
/// GOAWAY, after which it takes no new stream. A GOAWAY with an error code closes the connection
/// at once (RFC 9113 §5.4.1: the server is closing it): the streams it processed fail with a typed
/// error instead of waiting for bytes that will not come.
final class HTTP2ConnectionWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame

    /// RFC 9113 §6.5.2 sets no default for SETTINGS_MAX_CONCURRENT_STREAMS; 100 is what it
    /// recommends a server allow at least, and what a server that announces nothing is taken to take.
    static let defaultConcurrentStreams = 100

    /// Succeeds with the stream limit once the server's first SETTINGS frame arrives; fails if the
    /// connection errs or closes first.
    let ready: EventLoopFuture<Int>
    private var readyPromise: EventLoopPromise<Int>?
    private var concurrentStreams = HTTP2ConnectionWatcher.defaultConcurrentStreams
    /// Told of a change of the limit after the first SETTINGS, and of a GOAWAY.
    var onCapacityChanged: ((Int) -> Void)?
    var onGoingAway: ((_ lastProcessedStream: HTTP2StreamID) -> Void)?

    init(eventLoop: any EventLoop) {
        let promise = eventLoop.makePromise(of: Int.self)
        self.readyPromise = promise
        self.ready = promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                self.concurrentStreams = setting.value
            }
            if let promise = self.readyPromise {
                self.readyPromise = nil
                promise.succeed(self.concurrentStreams)
            } else {
                self.onCapacityChanged?(self.concurrentStreams)
            }
        case .goAway(let lastStreamID, let errorCode, _):
            self.onGoingAway?(lastStreamID)
            if errorCode != .noError {
                // After NIOHTTP2 has ended the streams above `lastStreamID` (never processed:
                // sent again elsewhere) for this frame; closing at once would fail them as lost.
                // A server that takes a burst of resets for an attack (RFC 9113 §10.5; NIOHTTP2's
                // and nginx's rapid-reset limits) says so with ENHANCE_YOUR_CALM and stream 0.
                let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.eventLoop.execute { loopBound.value.close(promise: nil) }
            }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A stream's error (a malformed response on one stream) resets that stream alone, and
        // reaches its channel too: the connection's other streams go on.
        if Self.isStreamError(error) {
            return
        }
        self.readyPromise?.fail(error)
        self.readyPromise = nil
        context.close(promise: nil)
    }

    /// Whether NIOHTTP2 reports `error` for one stream (which it resets) rather than for the
    /// connection (which it ends with GOAWAY): it reports both the same way, and only wraps some
    /// stream errors in `StreamError`; a malformed header block or a body that breaks its
    /// `content-length` is a stream's (RFC 9113 §8.1.1).
    static func isStreamError(_ error: any Error) -> Bool {
        switch error {
        case is NIOHTTP2Errors.StreamError, is NIOHTTP2Errors.MissingPseudoHeader, is NIOHTTP2Errors.DuplicatePseudoHeader,
            is NIOHTTP2Errors.PseudoHeaderAfterRegularHeader, is NIOHTTP2Errors.UnknownPseudoHeader,
            is NIOHTTP2Errors.UnsupportedPseudoHeader, is NIOHTTP2Errors.InvalidPseudoHeaders, is NIOHTTP2Errors.InvalidStatusValue,
            is NIOHTTP2Errors.InvalidHTTP2HeaderFieldName, is NIOHTTP2Errors.InvalidHTTP2HeaderFieldValue,
            is NIOHTTP2Errors.ForbiddenHeaderField, is NIOHTTP2Errors.InvalidPseudoHeaderValue, is NIOHTTP2Errors.EmptyPathHeader,
            is NIOHTTP2Errors.TrailersWithoutEndStream, is NIOHTTP2Errors.ContentLengthViolated,
            is NIOHTTP2Errors.ContentLengthHeadersMismatch, is NIOHTTP2Errors.ContentLengthHeaderNegative,
            is NIOHTTP2Errors.ContentLengthHeaderMalformedValue:
            return true
        default:
            return false
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.readyPromise?.fail(TransportError.connectionClosedBeforeResponse)
        self.readyPromise = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.readyPromise?.fail(TransportError.connectionClosedBeforeResponse)
        self.readyPromise = nil
    }
}

@available(*, unavailable)
extension HTTP2ConnectionWatcher: Sendable {}
