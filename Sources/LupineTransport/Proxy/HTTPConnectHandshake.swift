import NIOCore

/// The handshake of a tunnel through an HTTP proxy (RFC 9110 §9.3.6): `CONNECT host:port`, with
/// the proxy's credentials when it has some, then the proxy's answer head. A 2xx opens the
/// tunnel. A `407` names the credentials; a `502`, `503` or `504` (the origin unreachable, or the
/// proxy busy: squid answers `503` to a refused connection) may pass on another try, and any
/// other status is a refusal. The head is read up to ``maximumHeadSize``: a longer one is
/// refused, as is one that is not HTTP.
struct HTTPConnectHandshake: ProxyHandshake {
    static let name = "CONNECT"

    /// The longest answer head read from the proxy.
    static let maximumHeadSize = 16 * 1024

    private let target: String
    private let authorization: String?
    private let hasCredentials: Bool
    /// How much of the answer is known to hold no end of head: each read scans only what came
    /// since, less the three bytes an end may straddle.
    private var scanned = 0

    /// The handshake for a tunnel through `proxy` to `host` and `port`.
    init(proxy: Proxy, host: String, port: Int) {
        self.target = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        self.authorization = proxy.basicAuthorization
        self.hasCredentials = proxy.credentials != nil
    }

    func start() -> ProxyHandshakeStep {
        var head = "CONNECT \(self.target) HTTP/1.1\r\nHost: \(self.target)\r\n"
        if let authorization = self.authorization {
            head += "Proxy-Authorization: \(authorization)\r\n"
        }
        head += "\r\n"
        return .send(Array(head.utf8))
    }

    mutating func read(_ received: inout ByteBuffer) -> ProxyHandshakeStep {
        let bytes = received.readableBytesView
        let end = Self.endOfHead(in: bytes, from: bytes.startIndex + max(0, self.scanned - 3))
        self.scanned = bytes.count
        guard let end, end.head - bytes.startIndex <= Self.maximumHeadSize else {
            if end != nil || received.readableBytes > Self.maximumHeadSize {
                return .fail("its answer to CONNECT is longer than \(Self.maximumHeadSize / 1024) KiB", mayPass: false)
            }
            return .wait
        }
        // The status line, up to the first CR or LF (as bytes: "\r\n" is one Character).
        let lineEnd = bytes[bytes.startIndex..<end.head].firstIndex { $0 == 13 || $0 == 10 } ?? end.head
        let statusLine = String(decoding: bytes[bytes.startIndex..<lineEnd], as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
            return .fail("its answer to CONNECT is not HTTP", mayPass: false)
        }
        guard (200..<300).contains(status) else {
            let reason = parts.count > 2 ? " \(MessageText.oneLine(String(parts[2].prefix(80))))" : ""
            if status == 407 {
                return .fail(
                    self.hasCredentials ? "it refused the credentials (407\(reason))" : "it asks for credentials (407\(reason))",
                    mayPass: false
                )
            }
            return .fail("it refused the tunnel to \(self.target) (\(status)\(reason))", mayPass: [502, 503, 504].contains(status))
        }
        received.moveReaderIndex(forwardBy: end.body - bytes.startIndex)
        return .open
    }

    /// Where the head in `bytes` ends (the empty line that ends it) and where what follows it
    /// starts, if the empty line is there: CRLF line ends, or a lone LF, as RFC 9112 §2.2 lets a
    /// recipient accept.
    private static func endOfHead(in bytes: ByteBufferView, from start: Int) -> (head: Int, body: Int)? {
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == 10 {
                let next = index + 1
                if next < bytes.endIndex, bytes[next] == 10 {
                    return (index, next + 1)
                }
                if next + 1 < bytes.endIndex, bytes[next] == 13, bytes[next + 1] == 10 {
                    return (index, next + 2)
                }
            }
            index += 1
        }
        return nil
    }
}
