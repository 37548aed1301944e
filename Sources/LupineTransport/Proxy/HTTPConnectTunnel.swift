import NIOCore

/// Opens a tunnel through an HTTP proxy (RFC 9110 §9.3.6): sends `CONNECT host:port`, with the
/// proxy's credentials when it has some, reads the proxy's answer head, and on a 2xx removes
/// itself, handing whatever followed the head to the handlers added after it; anything else
/// fails the connection with ``TransportError/proxyFailed(proxy:reason:)`` before a byte reaches
/// the origin. The answer head is read up to 16 KiB: a longer one is refused, as is one that is
/// not HTTP, and a proxy that closes first.
///
/// Confined to the channel's event loop.
final class HTTPConnectTunnel: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The longest answer head read from the proxy.
    static let maximumHeadSize = 16 * 1024

    private let proxy: Proxy
    private let target: String
    private let established: EventLoopPromise<Void>
    private var received = ByteBuffer()
    private var isDone = false

    /// A tunnel to `host` and `port` through `proxy`; `established` succeeds once it is open.
    init(proxy: Proxy, host: String, port: Int, established: EventLoopPromise<Void>) {
        self.proxy = proxy
        self.target = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        self.established = established
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive {
            self.sendConnect(context: context)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.sendConnect(context: context)
        context.fireChannelActive()
    }

    private func sendConnect(context: ChannelHandlerContext) {
        var head = "CONNECT \(self.target) HTTP/1.1\r\nHost: \(self.target)\r\n"
        if let authorization = self.proxy.basicAuthorization {
            head += "Proxy-Authorization: \(authorization)\r\n"
        }
        head += "\r\n"
        context.writeAndFlush(Self.wrapOutboundOut(ByteBuffer(string: head)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.isDone else {
            context.fireChannelRead(data)
            return
        }
        var buffer = Self.unwrapInboundIn(data)
        self.received.writeBuffer(&buffer)
        let bytes = self.received.readableBytesView
        let end = Self.endOfHead(in: bytes)
        guard let end, end.head - bytes.startIndex <= Self.maximumHeadSize else {
            if end != nil || self.received.readableBytes > Self.maximumHeadSize {
                self.fail("its answer to CONNECT is longer than \(Self.maximumHeadSize / 1024) KiB", context: context)
            }
            return
        }
        // The status line, up to the first CR or LF (as bytes: "\r\n" is one Character).
        let lineEnd = bytes[bytes.startIndex..<end.head].firstIndex { $0 == 13 || $0 == 10 } ?? end.head
        let statusLine = String(decoding: bytes[bytes.startIndex..<lineEnd], as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
            return self.fail("its answer to CONNECT is not HTTP", context: context)
        }
        guard (200..<300).contains(status) else {
            let reason = parts.count > 2 ? " \(MessageText.oneLine(String(parts[2].prefix(80))))" : ""
            if status == 407 {
                return self.fail(
                    self.proxy.credentials == nil
                        ? "it asks for credentials (407\(reason))"
                        : "it refused the credentials (407\(reason))",
                    context: context
                )
            }
            // 502, 503 and 504 say the origin was unreachable or the proxy busy: another try may
            // pass, as after a direct connection that failed (squid answers 503 to a refused one).
            return self.fail("it refused the tunnel to \(self.target) (\(status)\(reason))", context: context, mayPass: [502, 503, 504].contains(status))
        }
        self.isDone = true
        self.received.moveReaderIndex(forwardBy: end.body - bytes.startIndex)
        let rest = self.received
        self.received = ByteBuffer()
        // The handlers for the origin go in as the promise succeeds; what came after the head is
        // theirs, handed on before this handler leaves (a removed handler reaches no one).
        self.established.succeed(())
        if rest.readableBytes > 0 {
            context.fireChannelRead(Self.wrapInboundOut(rest))
        }
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !self.isDone {
            self.isDone = true
            self.established.fail(TransportError.proxyConnectionFailed(proxy: self.proxy.endpoint, reason: "it closed the connection during CONNECT"))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !self.isDone else {
            context.fireErrorCaught(error)
            return
        }
        self.fail("the connection failed during CONNECT (\(TransportErrorWords.describe(error)))", context: context)
    }

    /// Fails the tunnel; `mayPass` when another try may succeed (the origin was unreachable).
    private func fail(_ reason: String, context: ChannelHandlerContext, mayPass: Bool = false) {
        guard !self.isDone else { return }
        self.isDone = true
        self.established.fail(
            mayPass
                ? TransportError.proxyCouldNotReachOrigin(proxy: self.proxy.endpoint, reason: reason)
                : TransportError.proxyFailed(proxy: self.proxy.endpoint, reason: reason)
        )
        context.close(promise: nil)
    }

    /// Where the head in `bytes` ends (the empty line that ends it) and where what follows it
    /// starts, if the empty line is there: CRLF line ends, or a lone LF, as RFC 9112 §2.2 lets a
    /// recipient accept.
    private static func endOfHead(in bytes: ByteBufferView) -> (head: Int, body: Int)? {
        var index = bytes.startIndex
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

@available(*, unavailable)
extension HTTPConnectTunnel: Sendable {}
