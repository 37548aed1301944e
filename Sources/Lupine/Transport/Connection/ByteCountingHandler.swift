import NIOCore
import NIOHTTP2

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

/// Counts the bytes of one HTTP/2 stream each way: its DATA payloads, and for HEADERS the
/// uncompressed size of the fields as RFC 9113 §6.5.2 counts them (HPACK's compressed size is
/// known only to the connection, which shares its table between streams).
final class HTTP2StreamByteCounter: ChannelDuplexHandler, RemovableChannelHandler, ByteCounter {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private(set) var bytesRead = 0
    private(set) var bytesWritten = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.bytesRead += Self.size(of: Self.unwrapInboundIn(data))
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        self.bytesWritten += Self.size(of: Self.unwrapOutboundIn(data))
        context.write(data, promise: promise)
    }

    private static func size(of payload: HTTP2Frame.FramePayload) -> Int {
        switch payload {
        case .data(let data):
            return data.data.readableBytes
        case .headers(let headers):
            return headers.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 32 }
        default:
            return 0
        }
    }
}

@available(*, unavailable)
extension ByteCountingHandler: Sendable {}

@available(*, unavailable)
extension HTTP2StreamByteCounter: Sendable {}
