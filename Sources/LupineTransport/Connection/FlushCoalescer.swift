import NIOCore

/// Holds an HTTP/2 connection's flushes until the event loop has run the tasks already queued,
/// then flushes once.
///
/// Every request on an HTTP/2 connection starts its stream in a task of its own, and each flushes
/// the connection. Without this handler, 64 requests that start together cost 64 TLS records and
/// 64 system calls; with it, they leave in one write. NIO runs the tasks queued on an event loop
/// in batches and queues the flush behind the current one, so the wait lasts no longer than the
/// batch (no timer), and a lone request still leaves at once.
///
/// All state is confined to the channel's event loop.
final class FlushCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer

    private var isFlushQueued = false

    func flush(context: ChannelHandlerContext) {
        guard !self.isFlushQueued else { return }
        self.isFlushQueued = true
        context.eventLoop.assumeIsolated().execute {
            self.isFlushQueued = false
            context.flush()
        }
    }
}

@available(*, unavailable)
extension FlushCoalescer: Sendable {}
