import NIOCore
import NIOHTTP1

/// Enforces a ``DecompressionLimit`` around NIO's response decompressor, which is given no limit
/// of its own (its ratio mode refuses a small, highly repetitive body from the first bytes).
///
/// ``compressedSide`` sits before the decompressor and counts the compressed body bytes, handing
/// them on in slices of at most 16 KiB as the consumer asks for more; ``inflatedSide`` sits after
/// it, counts what they inflate to and, once the limit is exceeded, reports
/// ``TransportError/decompressionLimitExceeded(inflatedBytes:compressedBytes:limit:)`` and drops
/// the rest. Slicing bounds the work done after the limit is hit: at most one slice's worth is
/// inflated (and discarded), never a whole socket read's.
///
/// Both handlers and their shared counts are confined to the channel's event loop.
final class DecompressionGuard {
    let compressedSide: CompressedSide
    let inflatedSide: InflatedSide

    init(limit: DecompressionLimit) {
        let meter = Meter(limit: limit)
        self.compressedSide = CompressedSide(meter: meter)
        self.inflatedSide = InflatedSide(meter: meter)
    }

    /// The counts of the response in flight.
    final class Meter {
        let limit: DecompressionLimit
        /// Whether the response in flight is gzip or deflate, so that the decompressor inflates it.
        var isCompressed = false
        var compressed = 0
        var inflated = 0
        var exceeded = false

        init(limit: DecompressionLimit) {
            self.limit = limit
        }

        /// Starts counting a response with `head`, recognising the encodings NIO's decompressor inflates.
        func start(_ head: HTTPResponseHead) {
            let encoding = head.headers[canonicalForm: "Content-Encoding"].first?.lowercased()
            self.isCompressed = encoding == "gzip" || encoding == "deflate"
            self.compressed = 0
            self.inflated = 0
            self.exceeded = false
        }
    }

    /// Counts compressed body bytes and hands them on in slices, as the consumer asks for more:
    /// each demand (a `read` that the handlers after this one let through) inflates at most
    /// ``inflatedBytesPerDemand``; the compressed rest waits here, and the socket is not read
    /// meanwhile. So even without a limit a bomb inflates only as fast as its body is consumed.
    final class CompressedSide: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias InboundOut = HTTPClientResponsePart
        typealias OutboundIn = HTTPClientRequestPart
        typealias OutboundOut = HTTPClientRequestPart

        /// The largest compressed slice handed to the decompressor at once.
        static let maximumSliceSize = 16 * 1024
        /// The smallest: a KiB of the densest deflate data inflates to about 1 MiB.
        static let minimumSliceSize = 1024
        /// Deflate's largest possible ratio, assumed for a body's first slice.
        static let worstRatio = 1032
        /// How many inflated bytes one demand may produce before the rest waits for the next.
        static let inflatedBytesPerDemand = 1024 * 1024

        private let meter: Meter
        /// Compressed bytes received but not yet handed to the decompressor.
        private var pending = ByteBuffer()
        /// The end of the body, or of the connection, held back until `pending` has been handed on.
        private var heldEnd: HTTPClientResponsePart?
        private var heldInactive = false
        /// How much the last slice inflated per compressed byte, which sizes the next slice.
        private var lastRatio = CompressedSide.worstRatio

        init(meter: Meter) {
            self.meter = meter
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let part = Self.unwrapInboundIn(data)
            switch part {
            case .head(let head):
                self.meter.start(head)
                self.pending.clear()
                self.lastRatio = Self.worstRatio
                context.fireChannelRead(data)
            case .body(var buffer) where self.meter.isCompressed:
                guard !self.meter.exceeded else { return }
                self.pending.writeBuffer(&buffer)
                self.handOn(context: context)
            case .body, .end:
                guard !self.meter.exceeded else { return }
                if self.pending.readableBytes > 0 {
                    self.heldEnd = part
                } else {
                    context.fireChannelRead(data)
                }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            if self.pending.readableBytes > 0 && !self.meter.exceeded {
                self.heldInactive = true
            } else {
                context.fireChannelInactive()
            }
        }

        func read(context: ChannelHandlerContext) {
            guard self.pending.readableBytes > 0 else {
                context.read()
                return
            }
            self.handOn(context: context)
            if self.pending.readableBytes > 0 {
                // Ask again through the handlers after this one, which hold the read back while
                // their consumer has enough.
                let pipeline = context.pipeline
                context.eventLoop.execute { pipeline.read() }
            } else {
                context.read()
            }
        }

        /// Hands pending slices to the decompressor until this demand's share is inflated. Each
        /// slice is sized by the last one's ratio, so that none inflates much past the share.
        private func handOn(context: ChannelHandlerContext) {
            let stopAt = self.meter.inflated + Self.inflatedBytesPerDemand
            while !self.meter.exceeded, self.meter.inflated < stopAt, self.pending.readableBytes > 0 {
                let size = min(
                    max((stopAt - self.meter.inflated) / self.lastRatio, Self.minimumSliceSize),
                    Self.maximumSliceSize,
                    self.pending.readableBytes
                )
                guard let slice = self.pending.readSlice(length: size) else { break }
                let inflatedBefore = self.meter.inflated
                self.meter.compressed += size
                context.fireChannelRead(Self.wrapInboundOut(.body(slice)))
                self.lastRatio = max(1, (self.meter.inflated - inflatedBefore) / size)
            }
            guard self.pending.readableBytes == 0 || self.meter.exceeded else { return }
            self.pending.clear()
            if let end = self.heldEnd {
                self.heldEnd = nil
                if !self.meter.exceeded {
                    context.fireChannelRead(Self.wrapInboundOut(end))
                }
            }
            if self.heldInactive {
                self.heldInactive = false
                context.fireChannelInactive()
            }
        }
    }

    /// Counts inflated body bytes and stops the body once the limit is exceeded.
    final class InflatedSide: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias InboundOut = HTTPClientResponsePart

        private let meter: Meter

        init(meter: Meter) {
            self.meter = meter
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !self.meter.exceeded else { return }
            guard case .body(let buffer) = Self.unwrapInboundIn(data), self.meter.isCompressed else {
                context.fireChannelRead(data)
                return
            }
            self.meter.inflated += buffer.readableBytes
            guard self.meter.limit.isExceeded(inflated: self.meter.inflated, compressed: self.meter.compressed) else {
                context.fireChannelRead(data)
                return
            }
            self.meter.exceeded = true
            context.fireErrorCaught(
                TransportError.decompressionLimitExceeded(
                    inflatedBytes: self.meter.inflated,
                    compressedBytes: self.meter.compressed,
                    limit: self.meter.limit
                )
            )
        }
    }
}

@available(*, unavailable)
extension DecompressionGuard.CompressedSide: Sendable {}

@available(*, unavailable)
extension DecompressionGuard.InflatedSide: Sendable {}
