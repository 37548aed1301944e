import NIOCore
import NIOTLS

/// Reports when its channel's TLS handshake finishes, or the first error before that.
final class TLSHandshakeObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var promise: EventLoopPromise<Void>?
    /// Succeeds when the handshake completes; fails if the channel errs or goes away first.
    let handshakeCompleted: EventLoopFuture<Void>

    init(eventLoop: any EventLoop) {
        let promise = eventLoop.makePromise(of: Void.self)
        self.promise = promise
        self.handshakeCompleted = promise.futureResult
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.promise?.fail(TransportError.connectionClosedBeforeResponse)
        self.promise = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            self.promise?.succeed()
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
