import NIOCore
import NIOTLS

/// Completes a promise when the TLS handshake finishes, or fails it with the first error before that.
final class TLSHandshakeObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var promise: EventLoopPromise<Void>?

    init(promise: EventLoopPromise<Void>) {
        self.promise = promise
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
