import NIOCore
import NIOHTTP1

/// Enforces a ``DecompressionLimit`` around NIO's response decompressor, which is given no limit
/// of its own (its ratio mode refuses a small, highly repetitive body from the first bytes).
///
/// ``compressedSide`` sits before the decompressor and counts the compressed body bytes, handing
/// them on in slices of at most 4 KiB; ``inflatedSide`` sits after it, counts what they inflate
/// to and, once the limit is exceeded, reports
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
        /// Whether the request in flight is a `HEAD`, whose response has no body whatever it says.
        var requestIsHead = false
        /// The head of a response that names an encoding but has no body (a `HEAD`'s, a `1xx`,
        /// `204` or `304`), as it came: the decompressor, which would fail on the missing body, is
        /// shown it without `Content-Encoding`, and the caller gets it whole.
        var bodilessHead: HTTPResponseHead?
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
            let status = head.status.code
            let isBodiless = self.requestIsHead || status < 200 || status == 204 || status == 304
            self.bodilessHead = self.isCompressed && isBodiless ? head : nil
            self.isCompressed = self.isCompressed && !isBodiless
            self.compressed = 0
            self.inflated = 0
            self.exceeded = false
        }
    }

    /// Counts compressed body bytes and hands them on to the decompressor in small slices, the
    /// limit checked after each: once it is exceeded, at most one slice's worth has inflated past
    /// it (deflate's worst ratio, about 1,032, makes that 4 MiB), never a whole socket read's.
    /// It notes each request's method on its way out, since a `HEAD`'s response has no body.
    final class CompressedSide: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias InboundOut = HTTPClientResponsePart
        typealias OutboundIn = HTTPClientRequestPart
        typealias OutboundOut = HTTPClientRequestPart

        /// The largest compressed slice handed to the decompressor at once.
        static let maximumSliceSize = 4 * 1024

        private let meter: Meter

        init(meter: Meter) {
            self.meter = meter
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let part = Self.unwrapInboundIn(data)
            switch part {
            case .head(let head):
                self.meter.start(head)
                guard var shown = self.meter.bodilessHead else {
                    context.fireChannelRead(data)
                    return
                }
                shown.headers.remove(name: "Content-Encoding")
                context.fireChannelRead(Self.wrapInboundOut(.head(shown)))
            case .body(var buffer) where self.meter.isCompressed:
                while !self.meter.exceeded, let slice = buffer.readSlice(length: min(Self.maximumSliceSize, buffer.readableBytes)),
                    slice.readableBytes > 0
                {
                    self.meter.compressed += slice.readableBytes
                    context.fireChannelRead(Self.wrapInboundOut(.body(slice)))
                }
            case .body, .end:
                guard !self.meter.exceeded else { return }
                context.fireChannelRead(data)
            }
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .head(let head) = Self.unwrapOutboundIn(data) {
                self.meter.requestIsHead = head.method == .HEAD
            }
            context.write(data, promise: promise)
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
            let part = Self.unwrapInboundIn(data)
            if case .head = part, let original = self.meter.bodilessHead {
                context.fireChannelRead(Self.wrapInboundOut(.head(original)))
                return
            }
            guard case .body(let buffer) = part, self.meter.isCompressed else {
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
