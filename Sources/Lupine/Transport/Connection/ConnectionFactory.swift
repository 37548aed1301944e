import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// Opens connections for the pool: resolves the host, connects (happy eyeballs over IPv4 and
/// IPv6), performs the TLS handshake with the trust hook, and builds the HTTP/1.1 pipeline.
struct ConnectionFactory: Sendable {
    let configuration: TransportConfiguration
    /// The TLS context shared by all connections, or why it could not be made (reported per `https` request).
    let sslContext: Result<NIOSSLContext, any Error>

    init(configuration: TransportConfiguration) {
        self.configuration = configuration
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["http/1.1"]
        // Verification, host name included, is done by the trust hook (a custom verification
        // callback): NIOSSL's own host name check would overrule a policy that skips it.
        tls.certificateVerification = .noHostnameVerification
        // The trust hook's callback replaces BoringSSL's chain check, so BoringSSL needs no roots
        // of its own; its default would parse the system's whole CA bundle for every transport.
        tls.trustRoots = .certificates([])
        self.sslContext = Result { try NIOSSLContext(configuration: tls) }
    }

    /// Opens a connection to `key` on `eventLoop`.
    ///
    /// - Parameter onRequestFinished: called on the event loop after each request with whether the
    ///   connection may carry another.
    func makeConnection(
        id: PoolConnectionID,
        key: PoolKey,
        eventLoop: any EventLoop,
        onRequestFinished: @escaping @Sendable (_ reusable: Bool) -> Void
    ) -> EventLoopFuture<HTTPConnection> {
        let setup = MetricsRecorder()
        let connected = eventLoop.makePromise(of: HTTPConnection.self)
        let connectTimeout = self.configuration.connectTimeout
        let timeout = eventLoop.scheduleTask(in: connectTimeout) {
            connected.fail(TransportError.connectTimeout(host: key.host, port: key.port, timeout: connectTimeout))
        }
        connected.futureResult.whenComplete { _ in timeout.cancel() }

        let trustRejection = NIOLockedValueBox<(reason: String, chain: [[UInt8]])?>(nil)
        let decompression = self.configuration.decompressesResponses
        let decompressionLimit = self.configuration.decompressionLimit
        let sslContext = self.sslContext

        var bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            // Reads grow to 256 KiB while a large body streams in (NIO's default stops at 64 KiB):
            // a quarter of the chunks, and of the per-chunk work above, for bulk downloads.
            .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 256 * 1024))
            // One read per readiness (NIO's default is 4): once the body's consumer is full, the
            // handler holds the next read back at once, instead of three more 256 KiB buffers
            // arriving past the limit; and an idle connection keeps one receive buffer, not four.
            .channelOption(.maxMessagesPerRead, value: 1)
            .channelInitializer { channel in
                // Here rather than before `connect`: for a host name, the lookup comes first.
                setup.mark(.connectStart)
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if key.scheme == .https, let evaluator = key.trustEvaluator {
                        setup.mark(.secureConnectionStart)
                        let tlsHandler = try Self.makeTLSHandler(
                            context: sslContext.get(),
                            key: key,
                            evaluator: evaluator,
                            rejection: trustRejection
                        )
                        try sync.addHandler(tlsHandler)
                        try sync.addHandler(TLSHandshakeObserver(eventLoop: channel.eventLoop))
                    }
                    let counters = ByteCountingHandler()
                    try sync.addHandler(counters)
                    try sync.addHTTPClientHandlers()
                    if decompression {
                        try Self.addDecompression(limit: decompressionLimit, to: sync)
                    }
                    let handler = HTTPClientRequestHandler(
                        eventLoop: channel.eventLoop,
                        counters: counters,
                        onRequestFinished: onRequestFinished
                    )
                    try sync.addHandler(handler)
                }
            }

        let channelFuture: EventLoopFuture<any Channel>
        let fixedAddress = self.configuration.hostAddresses[key.host.lowercased()] ?? key.host
        if let address = try? SocketAddress(ipAddress: fixedAddress, port: key.port) {
            channelFuture = bootstrap.connect(to: address)
        } else {
            bootstrap = bootstrap.resolver(TimedResolver(eventLoop: eventLoop, metrics: setup))
            channelFuture = bootstrap.connect(host: key.host, port: key.port)
        }

        channelFuture.whenComplete { result in
            switch result {
            case .failure(let error):
                connected.fail(Self.connectError(error, key: key, timeout: connectTimeout))
            case .success(let channel):
                setup.mark(.connectEnd)
                connected.futureResult.whenFailure { _ in channel.close(promise: nil) }
                // Happy eyeballs may have initialised several channels: take the handlers of the one that won.
                let pipeline = channel.pipeline.syncOperations
                guard let handler = try? pipeline.handler(type: HTTPClientRequestHandler.self) else {
                    connected.fail(TransportError.connectionClosedBeforeResponse)
                    return
                }
                let handshake =
                    (try? pipeline.handler(type: TLSHandshakeObserver.self).handshakeCompleted)
                    ?? channel.eventLoop.makeSucceededVoidFuture()
                let boundHandler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
                handshake.whenComplete { result in
                    switch result {
                    case .success:
                        if key.scheme == .https { setup.mark(.secureConnectionEnd) }
                        connected.succeed(
                            HTTPConnection(id: id, channel: channel, handler: boundHandler, setupMetrics: setup.snapshot)
                        )
                    case .failure(let error):
                        if let rejection = trustRejection.withLockedValue({ $0 }) {
                            connected.fail(
                                TransportError.serverTrustRejected(
                                    host: key.host,
                                    reason: rejection.reason,
                                    certificateChain: rejection.chain
                                )
                            )
                        } else {
                            connected.fail(TransportError.tlsHandshakeFailed(host: key.host, underlying: error))
                        }
                    }
                }
            }
        }
        return connected.futureResult
    }

    /// NIO's decompressor, without a limit of its own, between the two sides of a ``DecompressionGuard``.
    private static func addDecompression(limit: DecompressionLimit, to pipeline: ChannelPipeline.SynchronousOperations) throws {
        let guardHandlers = DecompressionGuard(limit: limit)
        try pipeline.addHandler(guardHandlers.compressedSide)
        try pipeline.addHandler(NIOHTTPResponseDecompressor(limit: .none))
        try pipeline.addHandler(guardHandlers.inflatedSide)
    }

    private static func makeTLSHandler(
        context: NIOSSLContext,
        key: PoolKey,
        evaluator: ServerTrustEvaluator,
        rejection: NIOLockedValueBox<(reason: String, chain: [[UInt8]])?>
    ) throws -> NIOSSLClientHandler {
        // SNI carries names only, never literal addresses.
        let isAddress = (try? SocketAddress(ipAddress: key.host, port: 0)) != nil
        return try NIOSSLClientHandler(
            context: context,
            serverHostname: isAddress ? nil : key.host,
            customVerificationCallback: { certificates, promise in
                let chain = certificates.map { (try? $0.toDERBytes()) ?? [] }
                let challenge = ServerTrustChallenge(host: key.host, certificateChain: chain)
                Task {
                    switch await evaluator.evaluate(challenge) {
                    case .trusted:
                        promise.succeed(.certificateVerified)
                    case .rejected(let reason):
                        rejection.withLockedValue { $0 = (reason, chain) }
                        promise.succeed(.failed)
                    }
                }
            })
    }

    private static func connectError(_ error: any Error, key: PoolKey, timeout: TimeAmount) -> TransportError {
        switch error {
        case let error as TransportError:
            return error
        case ChannelError.connectTimeout:
            return .connectTimeout(host: key.host, port: key.port, timeout: timeout)
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first {
                return .connectionFailed(host: key.host, port: key.port, underlying: first.error)
            }
            return .hostNotFound(host: key.host)
        default:
            return .connectionFailed(host: key.host, port: key.port, underlying: error)
        }
    }
}
