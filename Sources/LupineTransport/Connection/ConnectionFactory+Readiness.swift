import NIOCore

extension ConnectionFactory {
    /// Where a channel keeps the outcome of its HTTP setup until the factory, once the connect
    /// (and happy eyeballs) is settled, takes it from the channel that won: the connection and how
    /// many requests it carries, or why there is none. A channel that goes away first fails it
    /// (a promise completes once; a later completion changes nothing).
    final class Readiness: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        let ready: EventLoopPromise<(connection: HTTPConnection, capacity: Int)>

        init(eventLoop: any EventLoop) {
            self.ready = eventLoop.makePromise()
        }

        func channelInactive(context: ChannelHandlerContext) {
            self.ready.fail(TransportError.connectionClosedBeforeResponse)
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            self.ready.fail(TransportError.connectionClosedBeforeResponse)
        }
    }
}

@available(*, unavailable)
extension ConnectionFactory.Readiness: Sendable {}
