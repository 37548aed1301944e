import NIOCore

/// Counts of the bytes that crossed a connection, or a stream, each way, for per-request metrics.
protocol ByteCounter: AnyObject {
    var bytesRead: Int { get }
    var bytesWritten: Int { get }
}

/// Counts the plaintext bytes that cross the connection each way.
final class ByteCountingHandler: ChannelDuplexHandler, RemovableChannelHandler, ByteCounter {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private(set) var bytesRead = 0
    private(set) var bytesWritten = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.bytesRead += Self.unwrapInboundIn(data).readableBytes
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        self.bytesWritten += Self.unwrapOutboundIn(data).readableBytes
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension ByteCountingHandler: Sendable {}
