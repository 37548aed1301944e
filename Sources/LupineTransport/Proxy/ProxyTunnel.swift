import NIOCore

/// What a proxy's handshake says to do next, as the tunnel reads the proxy's answers.
enum ProxyHandshakeStep: Equatable {
    /// Wait for more of the proxy's answer.
    case wait
    /// Send these bytes to the proxy, then read on.
    case send([UInt8])
    /// The tunnel is open; what was read past the handshake belongs to the origin.
    case open
    /// The proxy refused or failed: `mayPass` when another try may succeed (the origin was
    /// unreachable from it, or it was busy).
    case fail(String, mayPass: Bool)
}

/// One proxy protocol's handshake as a pure state machine: the bytes it opens with, then what
/// each answer of the proxy calls for. ``ProxyTunnel`` does the I/O.
protocol ProxyHandshake {
    /// The handshake in words, for a failure during it ("CONNECT", "the SOCKS5 handshake").
    static var name: String { get }
    /// What to send once the connection to the proxy is open.
    mutating func start() -> ProxyHandshakeStep
    /// Reads what it can of the proxy's answers from `received`, consuming what it read.
    mutating func read(_ received: inout ByteBuffer) -> ProxyHandshakeStep
}

/// Opens a tunnel through a proxy by `Handshake`, first in the channel's pipeline: once the
/// connection to the proxy is open (and the handshake prepared), it sends the handshake's bytes
/// and feeds it the proxy's answers. When the tunnel opens it succeeds `established`, hands on
/// whatever came past the handshake, and leaves the pipeline, so the handlers added for the
/// origin read what follows. A refusal, a proxy that closes or errs, fails `established` with
/// ``TransportError/proxyFailed(proxy:reason:)`` (or
/// ``TransportError/proxyCouldNotReachOrigin(proxy:reason:)`` when another try may pass, or
/// ``TransportError/proxyConnectionFailed(proxy:reason:)`` when it closed), and closes the
/// connection before a byte reaches the origin. A handshake that could not be prepared fails
/// `established` with its own error.
///
/// Confined to the channel's event loop.
final class ProxyTunnel<Handshake: ProxyHandshake>: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        /// The connection to the proxy, or the handshake, is not ready yet.
        case preparing(EventLoopFuture<Handshake>)
        case handshaking(Handshake)
        case done
    }

    /// The most a proxy may send before the handshake starts (while a target name is looked up).
    static var maximumEarlyBytes: Int { 64 * 1024 }

    private let proxy: Proxy
    private let established: EventLoopPromise<Void>
    private var state: State
    private var received = ByteBuffer()

    /// A tunnel through `proxy` by the handshake `handshake` brings (on the channel's event
    /// loop); `established` succeeds once it is open.
    init(proxy: Proxy, handshake: EventLoopFuture<Handshake>, established: EventLoopPromise<Void>) {
        self.proxy = proxy
        self.state = .preparing(handshake)
        self.established = established
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive {
            self.begin(context: context)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.begin(context: context)
        context.fireChannelActive()
    }

    private func begin(context: ChannelHandlerContext) {
        guard case .preparing(let prepared) = self.state else { return }
        prepared.assumeIsolated().whenComplete { result in
            guard case .preparing = self.state else { return }
            switch result {
            case .success(var handshake):
                let step = handshake.start()
                self.state = .handshaking(handshake)
                self.perform(step, context: context)
            case .failure(let error):
                // Not the proxy's doing (a target name that does not resolve here): as it is.
                self.state = .done
                self.established.fail(error)
                context.close(promise: nil)
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .handshaking(var handshake) = self.state else {
            if case .done = self.state {
                context.fireChannelRead(data)
            } else {
                // A proxy that speaks first: kept for the handshake, within reason.
                var buffer = Self.unwrapInboundIn(data)
                self.received.writeBuffer(&buffer)
                if self.received.readableBytes > Self.maximumEarlyBytes {
                    self.fail("it sent more than \(Self.maximumEarlyBytes / 1024) KiB before it was asked anything", mayPass: false, context: context)
                }
            }
            return
        }
        var buffer = Self.unwrapInboundIn(data)
        self.received.writeBuffer(&buffer)
        let step = handshake.read(&self.received)
        self.state = .handshaking(handshake)
        self.perform(step, context: context)
    }

    /// Performs `step`; after a send, reads on, since a proxy may send several answers at once.
    private func perform(_ step: ProxyHandshakeStep, context: ChannelHandlerContext) {
        var step = step
        while case .send(let bytes) = step {
            context.writeAndFlush(Self.wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
            guard case .handshaking(var handshake) = self.state else { return }
            step = handshake.read(&self.received)
            self.state = .handshaking(handshake)
        }
        switch step {
        case .wait, .send:
            return
        case .fail(let reason, let mayPass):
            self.fail(reason, mayPass: mayPass, context: context)
        case .open:
            self.state = .done
            let rest = self.received
            self.received = ByteBuffer()
            // The origin's handlers go in as the promise succeeds; what came past the handshake
            // is theirs, handed on before this handler leaves (a removed handler reaches no one).
            self.established.succeed(())
            if rest.readableBytes > 0 {
                context.fireChannelRead(Self.wrapInboundOut(rest))
            }
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !self.isDone {
            let reason = "it closed the connection during \(Handshake.name)"
            self.state = .done
            self.established.fail(TransportError.proxyConnectionFailed(proxy: self.proxy.endpoint, reason: reason))
        }
        context.fireChannelInactive()
    }

    /// A tunnel that leaves the pipeline before it opened (a connection to the proxy that failed
    /// before it was active fires no `channelInactive`, only tears the pipeline down) fails
    /// `established`, so that nothing waits on it for ever and its callbacks, which hold the
    /// channel, are let go.
    func handlerRemoved(context: ChannelHandlerContext) {
        guard !self.isDone else { return }
        self.state = .done
        let reason = "the connection to it closed before \(Handshake.name)"
        self.established.fail(TransportError.proxyConnectionFailed(proxy: self.proxy.endpoint, reason: reason))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !self.isDone else {
            context.fireErrorCaught(error)
            return
        }
        self.fail("the connection failed during \(Handshake.name) (\(TransportErrorWords.describe(error)))", mayPass: false, context: context)
    }

    private var isDone: Bool {
        if case .done = self.state { true } else { false }
    }

    private func fail(_ reason: String, mayPass: Bool, context: ChannelHandlerContext) {
        guard !self.isDone else { return }
        self.state = .done
        self.established.fail(
            mayPass
                ? TransportError.proxyCouldNotReachOrigin(proxy: self.proxy.endpoint, reason: reason)
                : TransportError.proxyFailed(proxy: self.proxy.endpoint, reason: reason)
        )
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension ProxyTunnel: Sendable {}
