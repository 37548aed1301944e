import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// A request's HTTP/2 stream as the HTTP/1-style parts its ``HTTPClientRequestHandler`` reads and
/// writes, so that a request follows the same state machine over either version.
///
/// Out, the request head becomes one HEADERS frame (pseudo-header fields first, names in lower
/// case, `Host` as `:authority`; the connection-specific fields RFC 9113 §8.2.2 forbids, the
/// fields `Connection` names, and a `TE` other than `trailers` dropped rather than sent to fail
/// the stream), held until the next write or flush so that a request without a body leaves as
/// HEADERS with END_STREAM; body parts become DATA frames. When responses are decoded, it asks
/// for the available codings (``ContentCoding/acceptEncoding``) if the request names none, and
/// puts a ``ResponseDecoder`` behind itself only for a response in a coding: the others, most of
/// them, cross one handler fewer.
///
/// In, header blocks become response heads (informational ones, at most
/// ``maximumInformationalHeads``, then the final one, then trailers), DATA frames body parts. A
/// `:status` that is not a status (three digits, 100 to 599), an informational head that ends
/// the stream, a second block that does not end it, and `101` (which HTTP/2 forbids) are refused
/// and the stream is reset. What NIOHTTP2 reports when a stream ends early becomes the
/// transport's error: a stream the server refused (`REFUSED_STREAM`), or one its GOAWAY dropped
/// (above the last stream it says it processed), was not processed and may be sent again (RFC
/// 9113 §8.7): ``TransportError/requestNotProcessed(reason:)``; a stream reset otherwise fails
/// with the server's error code.
///
/// It counts the stream's bytes each way for the request's metrics: DATA payloads, and for
/// HEADERS the uncompressed size of the fields as RFC 9113 §6.5.2 counts them (HPACK's
/// compressed size is known only to the connection, which shares its table between streams).
/// One handler does all this because every handler a stream holds is built and torn down per
/// request.
final class HTTP2StreamCodec: ChannelDuplexHandler, RemovableChannelHandler, ByteCounter {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// The most informational heads (1xx) one response may bring.
    static let maximumInformationalHeads = 10

    private let scheme: String
    private let decompressionLimit: DecompressionLimit?
    /// The last stream the server's GOAWAY says it processed, once it sent one.
    private let lastProcessedStream: () -> HTTP2StreamID?

    private(set) var bytesRead = 0
    private(set) var bytesWritten = 0
    private var informationalHeads = 0
    private var finalHeadReceived = false
    private var requestIsHead = false
    /// The request's HEADERS, until the next write or flush.
    private var pendingHead: (block: HPACKHeaders, promise: EventLoopPromise<Void>?)?
    /// Whether the server's END_STREAM came, and whether ours left: then the stream is closed
    /// on both sides, and closes its channel by itself.
    private var receivedEnd = false
    private var sentEnd = false

    init(
        scheme: PoolKey.Scheme,
        decompressionLimit: DecompressionLimit?,
        lastProcessedStream: @escaping () -> HTTP2StreamID?
    ) {
        self.scheme = scheme.rawValue
        self.decompressionLimit = decompressionLimit
        self.lastProcessedStream = lastProcessedStream
    }

    // MARK: In

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .headers(let block):
            self.bytesRead += Self.size(of: block.headers)
            self.receivedEnd = self.receivedEnd || block.endStream
            self.read(block, context: context)
        case .data(let frame):
            self.receivedEnd = self.receivedEnd || frame.endStream
            guard case .byteBuffer(let buffer) = frame.data else { return }
            self.bytesRead += buffer.readableBytes
            if buffer.readableBytes > 0 {
                context.fireChannelRead(Self.wrapInboundOut(.body(buffer)))
            }
            if frame.endStream {
                context.fireChannelRead(Self.wrapInboundOut(.end(nil)))
            }
        default:
            // RST_STREAM arrives as an error (``errorCaught``); the rest has no HTTP/1 meaning.
            return
        }
    }

    private func read(_ block: HTTP2Frame.FramePayload.Headers, context: ChannelHandlerContext) {
        if self.finalHeadReceived {
            guard block.endStream else {
                return self.refuse("the server sent a header block after its response head that does not end the stream", context: context)
            }
            context.fireChannelRead(Self.wrapInboundOut(.end(Self.regularFields(of: block.headers))))
            return
        }
        let statuses = block.headers[":status"]
        guard statuses.count == 1, let status = statuses.first, Self.isStatus(status), let code = Int(status) else {
            let shown = (statuses.first ?? "").unicodeScalars.map { $0.isASCII && !$0.properties.isWhitespace ? String($0) : "?" }.joined().prefix(20)
            return self.refuse("the server's :status \"\(shown)\" is not a status code from 100 to 599", context: context)
        }
        if code < 200 {
            if code == 101 {
                return self.refuse("the server answered 101 Switching Protocols, which HTTP/2 forbids", context: context)
            }
            if block.endStream {
                return self.refuse("the server ended the stream with an informational response (\(status))", context: context)
            }
            self.informationalHeads += 1
            if self.informationalHeads > Self.maximumInformationalHeads {
                return self.refuse("the server sent more than \(Self.maximumInformationalHeads) informational responses", context: context)
            }
        } else {
            self.finalHeadReceived = true
        }
        let head = HTTPResponseHead(version: .http2, status: HTTPResponseStatus(statusCode: code), headers: Self.regularFields(of: block.headers))
        if self.finalHeadReceived, let decompressionLimit, !block.endStream, Self.isCoded(head, requestIsHead: self.requestIsHead) {
            do {
                try context.pipeline.syncOperations.addHandler(ResponseDecoder(limit: decompressionLimit), position: .after(self))
            } catch {
                context.fireErrorCaught(error)
                return
            }
        }
        context.fireChannelRead(Self.wrapInboundOut(.head(head)))
        if block.endStream {
            context.fireChannelRead(Self.wrapInboundOut(.end(nil)))
        }
    }

    private func refuse(_ reason: String, context: ChannelHandlerContext) {
        context.fireErrorCaught(TransportError.invalidResponse(reason: reason))
        context.close(promise: nil)
    }

    /// Whether a response with `head` has a body in a coding to decode.
    private static func isCoded(_ head: HTTPResponseHead, requestIsHead: Bool) -> Bool {
        guard !requestIsHead, head.status != .noContent, head.status != .notModified else { return false }
        return head.headers[canonicalForm: "content-encoding"].contains { !$0.isEmpty && $0.lowercased() != "identity" }
    }

    private static func regularFields(of block: HPACKHeaders) -> HTTPHeaders {
        var fields = HTTPHeaders()
        fields.reserveCapacity(block.count)
        for (name, value, _) in block where name.utf8.first != UInt8(ascii: ":") {
            fields.add(name: name, value: value)
        }
        return fields
    }

    private static func isStatus(_ status: String) -> Bool {
        let digits = Array(status.utf8)
        return digits.count == 3 && (UInt8(ascii: "1")...UInt8(ascii: "5")).contains(digits[0])
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    // MARK: Out

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch Self.unwrapOutboundIn(data) {
        case .head(let head):
            self.requestIsHead = head.method == .HEAD
            self.pendingHead = (self.requestBlock(head), promise)
        case .body(let body):
            self.writePendingHead(context: context)
            self.bytesWritten += body.readableBytes
            context.write(Self.wrapOutboundOut(.data(.init(data: body))), promise: promise)
        case .end(let trailers):
            let promise = self.noteEnd(promise, context: context)
            if let pending = self.pendingHead, trailers == nil {
                self.pendingHead = nil
                self.bytesWritten += Self.size(of: pending.block)
                pending.promise?.futureResult.cascade(to: promise)
                context.write(Self.wrapOutboundOut(.headers(.init(headers: pending.block, endStream: true))), promise: pending.promise ?? promise)
                return
            }
            self.writePendingHead(context: context)
            guard let trailers else {
                context.write(Self.wrapOutboundOut(.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true))), promise: promise)
                return
            }
            let block = HPACKHeaders(trailers.map { ($0.name.lowercased(), $0.value) })
            self.bytesWritten += Self.size(of: block)
            context.write(Self.wrapOutboundOut(.headers(.init(headers: block, endStream: true))), promise: promise)
        }
    }

    func flush(context: ChannelHandlerContext) {
        self.writePendingHead(context: context)
        context.flush()
    }

    private func writePendingHead(context: ChannelHandlerContext) {
        guard let pending = self.pendingHead else { return }
        self.pendingHead = nil
        self.bytesWritten += Self.size(of: pending.block)
        context.write(Self.wrapOutboundOut(.headers(.init(headers: pending.block))), promise: pending.promise)
    }

    /// The promise for the request's end, noting when the end has left (``sentEnd``).
    private func noteEnd(_ promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) -> EventLoopPromise<Void> {
        let promise = promise ?? context.eventLoop.makePromise()
        promise.futureResult.assumeIsolated().whenSuccess { self.sentEnd = true }
        return promise
    }

    /// The request's HEADERS (RFC 9113 §8.3.1).
    private func requestBlock(_ head: HTTPRequestHead) -> HPACKHeaders {
        var block = HPACKHeaders()
        block.reserveCapacity(head.headers.count + 5)
        block.add(name: ":method", value: head.method.rawValue)
        let isConnect = head.method == .CONNECT
        if !isConnect {
            block.add(name: ":scheme", value: self.scheme)
        }
        if let authority = head.headers.first(name: "host") {
            block.add(name: ":authority", value: authority)
        }
        if !isConnect {
            block.add(name: ":path", value: head.uri)
        }
        // NIOHPACK compares names with their case: `Connection`'s list is compared without.
        let named = head.headers.contains(name: "connection") ? Set(head.headers[canonicalForm: "connection"].map { $0.lowercased() }) : []
        var asksForCodings = false
        for (name, value) in head.headers {
            let name = name.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) ? name.lowercased() : name
            switch name {
            case "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
                continue
            case "te":
                // NIOHTTP2 takes `trailers` exactly; any other TE is HTTP/1's alone.
                guard value.trimmingCharacters(in: .whitespaces).lowercased() == "trailers" else { continue }
                block.add(name: name, value: "trailers")
                continue
            case "accept-encoding":
                asksForCodings = true
            default:
                if named.contains(name) { continue }
            }
            block.add(name: name, value: value)
        }
        if self.decompressionLimit != nil, !asksForCodings, !ContentCoding.acceptEncoding.isEmpty {
            block.add(name: "accept-encoding", value: ContentCoding.acceptEncoding)
        }
        return block
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

    private static func size(of block: HPACKHeaders) -> Int {
        block.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 32 }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.fireErrorCaught(Self.translate(error, lastProcessed: self.lastProcessedStream()))
    }

    /// A stream the server named as never processed (above a GOAWAY's last stream, or one whose
    /// HEADERS never left, so that it has no number yet) that ends with its connection, before
    /// NIOHTTP2 ended it (a server that closes straight after GOAWAY), fails as not processed, to
    /// be sent again, rather than as lost.
    func channelInactive(context: ChannelHandlerContext) {
        if let lastProcessed = self.lastProcessedStream(),
            (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)).map({ $0 > lastProcessed }) ?? true
        {
            context.fireErrorCaught(TransportError.requestNotProcessed(reason: "it went away (GOAWAY) before the request's stream"))
        }
        context.fireChannelInactive()
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
extension HTTP2StreamCodec: Sendable {}
