import NIOCore
import NIOPosix

/// Opens a tunnel through a SOCKS5 proxy (RFC 1928): offers no authentication, and user name and
/// password (RFC 1929) when the proxy has credentials; asks it to connect to the target, by name
/// (`socks5h`, the proxy resolves it) or by address (`socks5`, resolved here); and on success
/// removes itself, handing whatever followed the proxy's reply to the handlers added after it.
/// Any refusal, a reply that is not SOCKS5, or a proxy that closes first fails the connection
/// with ``TransportError/proxyFailed(proxy:reason:)`` before a byte reaches the origin.
///
/// Confined to the channel's event loop.
final class SOCKS5Tunnel: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Where the proxy is asked to connect.
    enum Target {
        case name(String, port: Int)
        case address([UInt8], port: Int)
    }

    private enum Stage {
        case choosingMethod, authenticating, connecting, done
    }

    private let proxy: Proxy
    /// The target, once known (a name `socks5` resolves here is looked up meanwhile).
    private let target: EventLoopFuture<Target>
    private var resolved: Target?
    private let established: EventLoopPromise<Void>
    private var stage = Stage.choosingMethod
    private var received = ByteBuffer()

    /// A tunnel through `proxy` to `host` and `port`; `established` succeeds once it is open.
    init(proxy: Proxy, host: String, port: Int, eventLoop: any EventLoop, established: EventLoopPromise<Void>) {
        self.proxy = proxy
        self.established = established
        if let address = ProxySettings.addressBytes(host) {
            self.target = eventLoop.makeSucceededFuture(.address(address, port: port))
        } else if proxy.kind == .socks5h {
            self.target = eventLoop.makeSucceededFuture(.name(host, port: port))
        } else {
            self.target = NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) {
                guard let address = Self.lookUp(host) else { throw TransportError.hostNotFound(host: host) }
                return .address(address, port: port)
            }
        }
    }

    /// The first address of `host` (IPv4 first, as SOCKS proxies commonly reach it), or `nil`.
    private static func lookUp(_ host: String) -> [UInt8]? {
        let addresses = DomainResolver.system.resolve(host)
        let v4 = addresses.lazy.compactMap { address -> [UInt8]? in
            if case .v4(let bytes) = address { return bytes }
            return nil
        }.first
        return v4
            ?? addresses.lazy.compactMap { address -> [UInt8]? in
                if case .v6(let bytes) = address { return bytes }
                return nil
            }.first
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive {
            self.greet(context: context)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.greet(context: context)
        context.fireChannelActive()
    }

    private func greet(context: ChannelHandlerContext) {
        let methods: [UInt8] = self.proxy.credentials == nil ? [0x00] : [0x00, 0x02]
        self.send([0x05, UInt8(methods.count)] + methods, context: context)
    }

    private func send(_ bytes: [UInt8], context: ChannelHandlerContext) {
        context.writeAndFlush(Self.wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard self.stage != .done else {
            context.fireChannelRead(data)
            return
        }
        var buffer = Self.unwrapInboundIn(data)
        self.received.writeBuffer(&buffer)
        // Each stage's answer is read whole before the next; a proxy may send several at once.
        while self.stage != .done, let step = self.step(context: context) {
            guard step else { return }
        }
    }

    /// Runs the stage whose answer has arrived: `nil` when more bytes are needed, `false` when
    /// the tunnel failed, `true` when the next stage began.
    private func step(context: ChannelHandlerContext) -> Bool? {
        let bytes = Array(self.received.readableBytesView.prefix(262))
        switch self.stage {
        case .choosingMethod:
            guard bytes.count >= 2 else { return nil }
            self.received.moveReaderIndex(forwardBy: 2)
            guard bytes[0] == 0x05 else { return self.fail("it does not speak SOCKS5", context: context) }
            switch bytes[1] {
            case 0x00:
                self.stage = .connecting
                self.sendConnectRequest(context: context)
            case 0x02 where self.proxy.credentials != nil:
                guard let credentials = self.proxy.credentials else { return false }
                let user = Array(credentials.user.utf8)
                let password = Array(credentials.password.utf8)
                guard user.count <= 255, password.count <= 255 else {
                    return self.fail("its user name and password must be at most 255 bytes each", context: context)
                }
                self.stage = .authenticating
                self.send([0x01, UInt8(user.count)] + user + [UInt8(password.count)] + password, context: context)
            case 0xFF, 0x02:
                return self.fail(
                    self.proxy.credentials == nil ? "it asks for credentials" : "it accepts none of the offered ways to authenticate",
                    context: context
                )
            default:
                return self.fail("it chose an authentication method that was not offered", context: context)
            }
        case .authenticating:
            guard bytes.count >= 2 else { return nil }
            self.received.moveReaderIndex(forwardBy: 2)
            guard bytes[0] == 0x01 else { return self.fail("its answer to the credentials is not SOCKS5", context: context) }
            guard bytes[1] == 0x00 else { return self.fail("it refused the credentials", context: context) }
            self.stage = .connecting
            self.sendConnectRequest(context: context)
        case .connecting:
            guard bytes.count >= 5 else { return nil }
            guard bytes[0] == 0x05 else { return self.fail("its reply is not SOCKS5", context: context) }
            let addressLength: Int
            switch bytes[3] {
            case 0x01: addressLength = 4
            case 0x04: addressLength = 16
            case 0x03: addressLength = 1 + Int(bytes[4])
            default: return self.fail("its reply names an unknown address type", context: context)
            }
            let length = 4 + addressLength + 2
            guard bytes.count >= length else { return nil }
            self.received.moveReaderIndex(forwardBy: length)
            guard bytes[1] == 0x00 else {
                // The origin unreachable or refusing (RFC 1928 §6: 1, 3 to 6) may answer another
                // try, as a direct connection that failed may; the proxy's own rules will not.
                return self.fail(
                    "it could not connect to \(self.targetDescription) (\(Self.replyWords(bytes[1])))",
                    context: context,
                    mayPass: [0x01, 0x03, 0x04, 0x05, 0x06].contains(bytes[1])
                )
            }
            self.stage = .done
            let rest = self.received
            self.received = ByteBuffer()
            // The origin's handlers go in as the promise succeeds; what followed the reply is
            // theirs, handed on before this handler leaves (a removed handler reaches no one).
            self.established.succeed(())
            if rest.readableBytes > 0 {
                context.fireChannelRead(Self.wrapInboundOut(rest))
            }
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
        case .done:
            return nil
        }
        return true
    }

    /// Asks the proxy to connect once the target is known.
    private func sendConnectRequest(context: ChannelHandlerContext) {
        self.target.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let target):
                self.resolved = target
                if case .name(let name, _) = target, name.utf8.count > 255 {
                    // RFC 1928 §5 carries a name in at most 255 bytes: cut, it would name another host.
                    _ = self.fail("the host name is longer than the 255 bytes SOCKS5 can carry; use socks5:// to resolve it here", context: context)
                    return
                }
                self.send(Self.connectRequest(to: target), context: context)
            case .failure(let error):
                _ = self.fail("the target's name could not be resolved here (\(TransportErrorWords.describe(error)))", context: context)
            }
        }
    }

    private static func connectRequest(to target: Target) -> [UInt8] {
        switch target {
        case .name(let name, let port):
            let bytes = Array(name.utf8)
            return [0x05, 0x01, 0x00, 0x03, UInt8(bytes.count)] + bytes + [UInt8(port >> 8), UInt8(port & 0xFF)]
        case .address(let address, let port):
            return [0x05, 0x01, 0x00, address.count == 4 ? 0x01 : 0x04] + address + [UInt8(port >> 8), UInt8(port & 0xFF)]
        }
    }

    private var targetDescription: String {
        switch self.resolved ?? .name("the target", port: 0) {
        case .name(let name, let port): return "\(name):\(port)"
        case .address(let address, let port):
            return address.count == 4
                ? address.map(String.init).joined(separator: ".") + ":\(port)"
                : "[" + stride(from: 0, to: address.count, by: 2).map { String(Int(address[$0]) << 8 | Int(address[$0 + 1]), radix: 16) }.joined(separator: ":") + "]:\(port)"
        }
    }

    /// RFC 1928 §6's reply codes in words.
    private static func replyWords(_ code: UInt8) -> String {
        switch code {
        case 0x01: return "general failure"
        case 0x02: return "not allowed by its rules"
        case 0x03: return "network unreachable"
        case 0x04: return "host unreachable"
        case 0x05: return "connection refused"
        case 0x06: return "TTL expired"
        case 0x07: return "command not supported"
        case 0x08: return "address type not supported"
        default: return "reply code \(code)"
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if self.stage != .done {
            self.stage = .done
            self.established.fail(TransportError.proxyConnectionFailed(proxy: self.proxy.endpoint, reason: "it closed the connection during the SOCKS5 handshake"))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard self.stage != .done else {
            context.fireErrorCaught(error)
            return
        }
        _ = self.fail("the connection failed during the SOCKS5 handshake (\(TransportErrorWords.describe(error)))", context: context)
    }

    /// Fails the tunnel; `mayPass` when another try may succeed (the origin was unreachable).
    private func fail(_ reason: String, context: ChannelHandlerContext, mayPass: Bool = false) -> Bool {
        guard self.stage != .done else { return false }
        self.stage = .done
        self.established.fail(
            mayPass
                ? TransportError.proxyCouldNotReachOrigin(proxy: self.proxy.endpoint, reason: reason)
                : TransportError.proxyFailed(proxy: self.proxy.endpoint, reason: reason)
        )
        context.close(promise: nil)
        return false
    }
}

@available(*, unavailable)
extension SOCKS5Tunnel: Sendable {}
