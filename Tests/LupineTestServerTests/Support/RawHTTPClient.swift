import Foundation

/// A minimal HTTP/1.1 client over one ``BlockingSocket``: it writes requests verbatim and parses
/// responses by hand (Content-Length, chunked, or until close), so tests see the server's bytes
/// without a client library's interpretation.
final class RawHTTPClient {
    enum Failure: Error {
        case unexpectedEndOfStream(received: [UInt8])
        case unexpected(String)
    }

    private let socket: BlockingSocket
    private let authority: String
    private var buffer: [UInt8] = []

    private init(socket: BlockingSocket, authority: String) {
        self.socket = socket
        self.authority = authority
    }

    deinit {
        socket.disconnect()
    }

    /// Connects to the host and port of `url`.
    static func connect(to url: URL) async throws -> RawHTTPClient {
        guard let host = url.host, let port = url.port else {
            throw Failure.unexpected("URL without host or port: \(url)")
        }
        let bareHost = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let socket = try await Blocking.run { try BlockingSocket.open(host: bareHost, port: port) }
        let authorityHost = bareHost.contains(":") ? "[\(bareHost)]" : bareHost
        return RawHTTPClient(socket: socket, authority: "\(authorityHost):\(port)")
    }

    /// Writes raw bytes.
    func send(_ bytes: [UInt8]) async throws {
        let socket = self.socket
        try await Blocking.run { try socket.write(bytes) }
    }

    /// Whether the server sends bytes or closes the connection within `milliseconds`.
    func hasIncomingBytes(within milliseconds: Int32) async throws -> Bool {
        let socket = self.socket
        return try await Blocking.run { socket.isReadable(within: milliseconds) }
    }

    /// Writes a request with `Host` and, for a body, `Content-Length`.
    func sendRequest(
        _ method: String = "GET",
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(authority)\r\n"
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
        }
        if !body.isEmpty {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        try await send(Array(head.utf8) + body)
    }

    /// Sends a request and reads its response.
    func request(
        _ method: String = "GET",
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws -> RawHTTPResponse {
        try await sendRequest(method, target, headers: headers, body: body)
        return try await readResponse(method: method)
    }

    /// Reads a status line and headers.
    func readHead() async throws -> RawHTTPResponse {
        let terminator = Array("\r\n\r\n".utf8)
        while buffer.firstRange(of: terminator) == nil {
            try await fill()
        }
        guard let end = buffer.firstRange(of: terminator) else { throw Failure.unexpected("no head") }
        let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<end.upperBound)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst()
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]),
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        return RawHTTPResponse(statusLine: statusLine, headers: headers)
    }

    /// Reads a complete response, framing its body as HTTP/1.1 does.
    func readResponse(method: String = "GET") async throws -> RawHTTPResponse {
        var response = try await readHead()
        if method == "HEAD" || [204, 304].contains(response.status) {
            return response
        }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            response.body = try await readChunkedBody()
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try await read(count: length)
        } else {
            response.body = try await readToEnd()
        }
        return response
    }

    /// Reads exactly `count` bytes.
    func read(count: Int) async throws -> [UInt8] {
        while buffer.count < count {
            try await fill()
        }
        let bytes = Array(buffer[..<count])
        buffer.removeSubrange(..<count)
        return bytes
    }

    /// Reads until the server closes the connection.
    func readToEnd() async throws -> [UInt8] {
        while try await receive() {}
        let bytes = buffer
        buffer = []
        return bytes
    }

    private func readChunkedBody() async throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try await readLine()
            let sizeText = sizeLine.split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw Failure.unexpected("bad chunk size line \(sizeLine)")
            }
            if size == 0 {
                while try await !readLine().isEmpty {}
                return body
            }
            body += try await read(count: size)
            _ = try await readLine()
        }
    }

    private func readLine() async throws -> String {
        let crlf = Array("\r\n".utf8)
        while buffer.firstRange(of: crlf) == nil {
            try await fill()
        }
        guard let end = buffer.firstRange(of: crlf) else { throw Failure.unexpected("no line") }
        let line = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<end.upperBound)
        return line
    }

    /// Appends the next received bytes to the buffer; false at end of stream.
    private func receive() async throws -> Bool {
        let socket = self.socket
        let bytes = try await Blocking.run { try socket.read() }
        buffer += bytes
        return !bytes.isEmpty
    }

    private func fill() async throws {
        guard try await receive() else {
            throw Failure.unexpectedEndOfStream(received: buffer)
        }
    }
}

extension RawHTTPClient {
    /// Whether the server closed the connection: an orderly end of stream and a reset both
    /// count (Linux resets when unread bytes remain at close).
    func isClosedByServer() async -> Bool {
        do {
            return try await self.readToEnd().isEmpty
        } catch BlockingSocket.Failure.system(_, ECONNRESET) {
            return true
        } catch {
            return false
        }
    }
}
