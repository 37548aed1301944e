import Foundation
import NIOCore
import NIOHTTP1

/// Decodes response bodies sent in a content coding (gzip, deflate, br, zstd, or several of them
/// in turn) and stops one that inflates past its ``DecompressionLimit``.
///
/// On the way out it asks for the available codings (``ContentCoding/acceptEncoding``) when a
/// request names none, and notes whether the request is a `HEAD`. On the way in it decodes a
/// body whose `Content-Encoding` lists only codings it knows, last applied first, and hands the
/// head on as it came (with its `Content-Encoding`). A body with a coding not decoded here is
/// handed over undecoded, with its `Content-Encoding` for the caller to judge (curl without
/// `--compressed` keeps such bytes too; with it, curl fails); a response that has no body whatever it says (a `HEAD`'s, a 1xx,
/// `204` or `304`) is never decoded.
///
/// The limit is checked after every decoded chunk (at most 64 KiB), for each coding of a chain:
/// a bomb stops within one chunk of the limit. A stream that is corrupt, ends early, has bytes
/// after its end, or names more than ``maximumCodings`` codings fails the request with
/// ``TransportError/decompressionFailed(reason:)``.
///
/// All state is confined to the channel's event loop.
final class ResponseDecoder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    /// The most codings one body may be in (curl refuses more than five as well).
    static let maximumCodings = 5

    private let limit: DecompressionLimit
    private var requestIsHead = false
    /// The decoders of the response in flight, in the order they run, with what each produced.
    private var decoders: [(decoder: ContentDecoder, produced: Int)] = []
    private var compressed = 0
    /// Once the response in flight failed: what is left of it is dropped.
    private var failed = false

    init(limit: DecompressionLimit) {
        self.limit = limit
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = Self.unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        self.requestIsHead = head.method == .HEAD
        let accepted = ContentCoding.acceptEncoding
        guard !head.headers.contains(name: "Accept-Encoding"), !accepted.isEmpty else {
            context.write(data, promise: promise)
            return
        }
        head.headers.add(name: "Accept-Encoding", value: accepted)
        context.write(Self.wrapOutboundOut(.head(head)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.failed = false
            self.compressed = 0
            do {
                self.decoders = try self.decoders(for: head).map { ($0, 0) }
            } catch {
                self.fail(error, context: context)
                return
            }
            context.fireChannelRead(data)
        case .body(let buffer):
            guard !self.failed else { return }
            guard !self.decoders.isEmpty else {
                context.fireChannelRead(data)
                return
            }
            self.compressed += buffer.readableBytes
            do {
                try self.decode(buffer, from: 0, allocator: context.channel.allocator) { decoded in
                    context.fireChannelRead(Self.wrapInboundOut(.body(decoded)))
                }
            } catch {
                self.fail(error, context: context)
            }
        case .end:
            guard !self.failed else { return }
            do {
                for stage in self.decoders { try stage.decoder.finish() }
            } catch {
                self.fail(error, context: context)
                return
            }
            self.decoders = []
            context.fireChannelRead(data)
        }
    }

    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        self.failed = true
        self.decoders = []
        context.fireErrorCaught(error)
    }

    /// Runs `input` through the decoders from `stage` on, checking the limit after each chunk.
    private func decode(
        _ input: ByteBuffer,
        from stage: Int,
        allocator: ByteBufferAllocator,
        deliver: (ByteBuffer) -> Void
    ) throws {
        let decoder = self.decoders[stage].decoder
        try decoder.decode(input, allocator: allocator) { output in
            self.decoders[stage].produced += output.readableBytes
            let inflated = self.decoders[stage].produced
            if self.limit.isExceeded(inflated: inflated, compressed: self.compressed) {
                throw TransportError.decompressionLimitExceeded(
                    inflatedBytes: inflated,
                    compressedBytes: self.compressed,
                    limit: self.limit
                )
            }
            if stage + 1 < self.decoders.count {
                try self.decode(output, from: stage + 1, allocator: allocator, deliver: deliver)
            } else {
                deliver(output)
            }
        }
    }

    /// The decoders a response with `head` needs, in the order they run: none when it has no
    /// body, no coding, or a coding not decoded here.
    private func decoders(for head: HTTPResponseHead) throws -> [ContentDecoder] {
        let status = head.status.code
        guard !self.requestIsHead, status >= 200, status != 204, status != 304 else { return [] }
        let tokens = head.headers[canonicalForm: "Content-Encoding"]
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !tokens.isEmpty else { return [] }
        guard tokens.count <= Self.maximumCodings else {
            throw TransportError.decompressionFailed(reason: "it names more than \(Self.maximumCodings) content codings")
        }
        let codings = tokens.compactMap { ContentCoding(token: String($0)) }.filter(\.isAvailable)
        guard codings.count == tokens.count else { return [] }
        var decoders: [ContentDecoder] = []
        for coding in codings.reversed() {
            guard let decoder = ContentDecoder(coding) else {
                throw TransportError.decompressionFailed(reason: "no \(coding.rawValue) decoder could be made (out of memory)")
            }
            decoders.append(decoder)
        }
        return decoders
    }
}

@available(*, unavailable)
extension ResponseDecoder: Sendable {}
