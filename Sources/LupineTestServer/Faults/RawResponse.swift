import NIOCore

/// Hand-built response bytes for the fault listener, which must be able to send what a real HTTP
/// encoder never would.
enum RawResponse {
    /// A response head: `statusLine`, then `headers` and `X-Lupine-Connection-ID`, then a blank line.
    static func head(
        _ statusLine: String = "HTTP/1.1 200 OK",
        headers: [(String, String)],
        connectionID: Int
    ) -> ByteBuffer {
        var text = statusLine + "\r\n"
        for (name, value) in headers + [("X-Lupine-Connection-ID", String(connectionID))] {
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        return ByteBuffer(string: text)
    }

    /// A complete response with a `Content-Length` body.
    static func complete(
        _ statusLine: String = "HTTP/1.1 200 OK",
        contentType: String = "text/plain",
        extraHeaders: [(String, String)] = [],
        body: String,
        connectionID: Int
    ) -> ByteBuffer {
        let headers = [("Content-Type", contentType), ("Content-Length", String(body.utf8.count))] + extraHeaders
        var buffer = head(statusLine, headers: headers, connectionID: connectionID)
        buffer.writeString(body)
        return buffer
    }

    /// `count` filler bytes (`x`).
    static func filler(_ count: Int) -> ByteBuffer {
        ByteBuffer(repeating: UInt8(ascii: "x"), count: count)
    }

    /// A whole response of `bytes` filler bytes, framed by `Content-Length` or, when `chunked`,
    /// in 16 KiB chunks.
    static func filled(_ statusLine: String, headers: [(String, String)], bytes: Int, chunked: Bool, connectionID: Int) -> ByteBuffer {
        let framing = chunked ? ("Transfer-Encoding", "chunked") : ("Content-Length", String(bytes))
        var response = head(statusLine, headers: headers + [framing], connectionID: connectionID)
        guard chunked else {
            response.writeImmutableBuffer(filler(bytes))
            return response
        }
        for start in stride(from: 0, to: bytes, by: 16 * 1024) {
            response.writeImmutableBuffer(chunk(min(16 * 1024, bytes - start)))
        }
        response.writeString("0\r\n\r\n")
        return response
    }

    /// One chunk of a chunked body: `count` filler bytes with their size line.
    static func chunk(_ count: Int) -> ByteBuffer {
        var buffer = ByteBuffer(string: String(count, radix: 16) + "\r\n")
        buffer.writeImmutableBuffer(Self.filler(count))
        buffer.writeString("\r\n")
        return buffer
    }

    /// About 200 KiB of header lines: 200 headers of 1 KiB each, well past NIOHTTP1's 80 KiB limit.
    static let oversizedHeaderLines: [(String, String)] = (0..<200).map { index in
        ("X-Lupine-Filler-\(index)", String(repeating: "a", count: 1000))
    }
}
