import NIOCore
import NIOHTTP2

/// Stands between a request's HTTP/2 stream and NIOHTTP2's HTTP/1 codec.
///
/// A response head whose `:status` is not a status (three digits, 100 to 599) is refused before
/// the codec sees it (the codec traps on an empty or negative one) and the stream is reset; so is
/// an informational head that ends the stream, and an eleventh informational head (a server
/// sending them forever would otherwise keep the request busy until its deadline). What NIOHTTP2 reports when
/// a stream ends early becomes the transport's error: a stream the server refused
/// (`REFUSED_STREAM`), or one its GOAWAY dropped (above the last stream it says it processed),
/// was not processed and may be sent again (RFC 9113 §8.7):
/// ``TransportError/requestNotProcessed(reason:)``; a stream reset otherwise fails with the
/// server's error code.
///
/// It also counts the stream's bytes each way for the request's metrics: its DATA payloads, and
/// for HEADERS the uncompressed size of the fields as RFC 9113 §6.5.2 counts them (HPACK's
/// compressed size is known only to the connection, which shares its table between streams).
/// One handler does both, as every handler a stream holds is built and torn down per request.
final class HTTP2StreamGuard: ChannelDuplexHandler, RemovableChannelHandler, ByteCounter {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private(set) var bytesRead = 0
    private(set) var bytesWritten = 0

    /// The last stream the server's GOAWAY says it processed, once it sent one.
    private let lastProcessedStream: () -> HTTP2StreamID?

    init(lastProcessedStream: @escaping () -> HTTP2StreamID?) {
        self.lastProcessedStream = lastProcessedStream
    }

    /// The most informational heads (1xx) one response may bring.
    static let maximumInformationalHeads = 10
    private var informationalHeads = 0

    /// Whether the server's END_STREAM came, and whether ours left: then the stream is closed
    /// on both sides, and closes its channel by itself.
    private var receivedEnd = false
    private var sentEnd = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let payload = Self.unwrapInboundIn(data)
        self.bytesRead += Self.size(of: payload)
        self.receivedEnd = self.receivedEnd || Self.endsStream(payload)
        if case .headers(let headers) = payload, let refusal = self.refusal(of: headers) {
            context.fireErrorCaught(TransportError.invalidResponse(reason: refusal))
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = Self.unwrapOutboundIn(data)
        self.bytesWritten += Self.size(of: payload)
        if Self.endsStream(payload), let promise {
            promise.futureResult.assumeIsolated().whenSuccess { self.sentEnd = true }
        }
        context.write(data, promise: promise)
    }

    /// A request that ends closes its stream's channel; when both sides have ended the stream,
    /// the channel closes by itself, and a close now would only try to reset a stream that is no
    /// more (NIOHTTP2 refuses that RST_STREAM, at a cost per request). Any other close resets the
    /// stream (CANCEL): a request cancelled, or answered before its body was sent.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard self.receivedEnd, self.sentEnd, mode == .all else {
            context.close(mode: mode, promise: promise)
            return
        }
        promise?.succeed(())
    }

    private static func endsStream(_ payload: HTTP2Frame.FramePayload) -> Bool {
        switch payload {
        case .headers(let headers): return headers.endStream
        case .data(let data): return data.endStream
        default: return false
        }
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

    /// Why a header block is refused, if it is.
    private func refusal(of block: HTTP2Frame.FramePayload.Headers) -> String? {
        let statuses = block.headers[":status"]
        if let status = statuses.first(where: { !Self.isStatus($0) }) {
            let shown = status.unicodeScalars.map { $0.isASCII && !$0.properties.isWhitespace ? String($0) : "?" }.joined().prefix(20)
            return "the server's :status \"\(shown)\" is not a status code from 100 to 599"
        }
        guard let status = statuses.first, status.hasPrefix("1") else { return nil }
        if block.endStream {
            return "the server ended the stream with an informational response (\(status))"
        }
        self.informationalHeads += 1
        if self.informationalHeads > Self.maximumInformationalHeads {
            return "the server sent more than \(Self.maximumInformationalHeads) informational responses"
        }
        return nil
    }

    private static func isStatus(_ status: String) -> Bool {
        let digits = Array(status.utf8)
        return digits.count == 3 && (UInt8(ascii: "1")...UInt8(ascii: "5")).contains(digits[0])
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.fireErrorCaught(Self.translate(error, lastProcessed: self.lastProcessedStream()))
    }

    static func translate(_ error: any Error, lastProcessed: HTTP2StreamID?) -> any Error {
        if error is NIOHTTP2Errors.CreatedStreamAfterGoaway {
            return TransportError.requestNotProcessed(reason: "it went away (GOAWAY) as the request's stream opened")
        }
        guard let closed = error as? NIOHTTP2Errors.StreamClosed else {
            return error is any NIOHTTP2Error ? TransportError.invalidResponse(reason: Self.reason(error)) : error
        }
        if closed.errorCode == .refusedStream {
            return TransportError.requestNotProcessed(reason: "it refused the request's stream (REFUSED_STREAM)")
        }
        if let lastProcessed, closed.streamID > lastProcessed {
            return TransportError.requestNotProcessed(reason: "it went away (GOAWAY) before the request's stream")
        }
        return TransportError.invalidResponse(reason: "the request's stream was reset (\(Self.name(of: closed.errorCode)))")
    }

    /// A reason naming what NIOHTTP2 found wrong (its error's type: its description holds a
    /// source file and line, which mean nothing to a user).
    static func reason(_ error: any Error) -> String {
        guard error is any NIOHTTP2Error else { return TransportErrorWords.describe(error) }
        return "the server broke HTTP/2 (\(type(of: error)))"
    }

    /// The RFC 9113 §7 name of `code`, or its number.
    static func name(of code: HTTP2ErrorCode) -> String {
        let names: [HTTP2ErrorCode: String] = [
            .noError: "NO_ERROR", .protocolError: "PROTOCOL_ERROR", .internalError: "INTERNAL_ERROR",
            .flowControlError: "FLOW_CONTROL_ERROR", .settingsTimeout: "SETTINGS_TIMEOUT", .streamClosed: "STREAM_CLOSED",
            .frameSizeError: "FRAME_SIZE_ERROR", .refusedStream: "REFUSED_STREAM", .cancel: "CANCEL",
            .compressionError: "COMPRESSION_ERROR", .connectError: "CONNECT_ERROR", .enhanceYourCalm: "ENHANCE_YOUR_CALM",
            .inadequateSecurity: "INADEQUATE_SECURITY", .http11Required: "HTTP_1_1_REQUIRED",
        ]
        return names[code] ?? "error 0x" + String(code.networkCode, radix: 16)
    }
}

@available(*, unavailable)
extension HTTP2StreamGuard: Sendable {}
