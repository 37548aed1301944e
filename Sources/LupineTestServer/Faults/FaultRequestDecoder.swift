import Foundation
import NIOCore

/// Splits the fault listener's inbound bytes into ``FaultRequest``s.
///
/// It emits a request as soon as its head (up to the blank line) is in, then skips its
/// `Content-Length` body, so the next request on a keep-alive connection starts where it should.
/// Emitting at the head lets `/stop-reading` stop before the body. Chunked request bodies are not
/// supported: the fault endpoints take no body.
struct FaultRequestDecoder: ByteToMessageDecoder {
    typealias InboundOut = FaultRequest

    /// Errors that end the connection.
    enum DecodingError: Error, Equatable {
        case headTooLarge
        case malformedRequestLine
        case invalidContentLength
    }

    /// Largest request head accepted.
    static let maximumHeadSize = 64 * 1024

    /// Body bytes of the last request still to skip.
    private var remainingBodyBytes = 0

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if remainingBodyBytes > 0 {
            let skipped = min(remainingBodyBytes, buffer.readableBytes)
            buffer.moveReaderIndex(forwardBy: skipped)
            remainingBodyBytes -= skipped
            return remainingBodyBytes > 0 ? .needMoreData : .continue
        }

        let view = buffer.readableBytesView
        guard let terminator = view.firstRange(of: Array("\r\n\r\n".utf8)) else {
            if buffer.readableBytes > Self.maximumHeadSize {
                throw DecodingError.headTooLarge
            }
            return .needMoreData
        }
        let headLength = terminator.upperBound - view.startIndex
        guard let head = buffer.readString(length: headLength) else { return .needMoreData }
        let request = try Self.parse(head)
        let contentLength =
            try request.header("Content-Length").map { value in
                guard let length = Int(value.trimmingCharacters(in: .whitespaces)), length >= 0 else {
                    throw DecodingError.invalidContentLength
                }
                return length
            } ?? 0
        remainingBodyBytes = contentLength
        context.fireChannelRead(wrapInboundOut(request))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        .needMoreData
    }

    private static func parse(_ head: String) throws -> FaultRequest {
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: true)
        guard let requestLine = lines.first else { throw DecodingError.malformedRequestLine }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3 else { throw DecodingError.malformedRequestLine }
        let target = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            )
        }
        return FaultRequest(
            path: String(target[0]),
            query: target.count > 1 ? String(target[1]) : nil,
            headers: headers
        )
    }
}
