import NIOCore
import NIOHTTP2

/// Turns what NIOHTTP2 reports when a stream ends early into the transport's errors, before they
/// reach the request's handler. A stream the server refused (`REFUSED_STREAM`), or one its GOAWAY
/// dropped (above the last stream it says it processed), was not processed and may be sent again
/// (RFC 9113 §8.7): ``TransportError/requestNotProcessed(reason:)``. A stream reset otherwise
/// fails with the server's error code.
final class HTTP2StreamErrorTranslator: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload

    /// The last stream the server's GOAWAY says it processed, once it sent one.
    private let lastProcessedStream: () -> HTTP2StreamID?

    init(lastProcessedStream: @escaping () -> HTTP2StreamID?) {
        self.lastProcessedStream = lastProcessedStream
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.fireErrorCaught(Self.translate(error, lastProcessed: self.lastProcessedStream()))
    }

    static func translate(_ error: any Error, lastProcessed: HTTP2StreamID?) -> any Error {
        if error is NIOHTTP2Errors.CreatedStreamAfterGoaway {
            return TransportError.requestNotProcessed(reason: "it went away (GOAWAY) as the request's stream opened")
        }
        guard let closed = error as? NIOHTTP2Errors.StreamClosed else { return error }
        if closed.errorCode == .refusedStream {
            return TransportError.requestNotProcessed(reason: "it refused the request's stream (REFUSED_STREAM)")
        }
        if let lastProcessed, closed.streamID > lastProcessed {
            return TransportError.requestNotProcessed(reason: "it went away (GOAWAY) before the request's stream")
        }
        return TransportError.invalidResponse(reason: "the server reset the request's stream (\(Self.name(of: closed.errorCode)))")
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
extension HTTP2StreamErrorTranslator: Sendable {}
