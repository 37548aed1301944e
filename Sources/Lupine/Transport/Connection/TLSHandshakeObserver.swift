import NIOCore
import NIOTLS

/// Reports when its channel's TLS handshake finishes, with the protocol ALPN settled on, or the
/// first error before that.
final class TLSHandshakeObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var promise: EventLoopPromise<String?>?
    /// Succeeds when the handshake completes, with the ALPN protocol (`nil` when the server picked
    /// none); fails if the channel errs or goes away first.
    let handshakeCompleted: EventLoopFuture<String?>

    init(eventLoop: any EventLoop) {
        let promise = eventLoop.makePromise(of: String?.self)
        self.promise = promise
        self.handshakeCompleted = promise.futureResult
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.promise?.fail(TransportError.connectionClosedBeforeResponse)
        self.promise = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiated) = event {
            self.promise?.succeed(negotiated)
            self.promise = nil
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.promise?.fail(error)
        self.promise = nil
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.promise?.fail(TransportError.connectionClosedBeforeResponse)
        self.promise = nil
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension TLSHandshakeObserver: Sendable {}
