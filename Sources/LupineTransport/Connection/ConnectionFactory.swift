import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// Opens connections for the pool: resolves the host, connects (happy eyeballs over IPv4 and
/// IPv6), performs the TLS handshake with the trust hook (ALPN offering what the configuration
/// allows), and builds the pipeline of the HTTP version the connection speaks.
struct ConnectionFactory: Sendable {
    let configuration: TransportConfiguration
    /// The TLS settings of every connection but ALPN's names.
    private let tls: TLSConfiguration
    /// The TLS contexts connections share, one per ``HTTPVersionSelection`` (they offer
    /// different names by ALPN), or why one could not be made (reported per `https` request);
    /// under `nil`, an HTTPS proxy's (HTTP/1.1, no client identity). The configuration's own is
    /// made at once; another is made when first needed.
    private let sslContexts: NIOLockedValueBox<[HTTPVersionSelection?: Result<NIOSSLContext, any Error>]>

    init(configuration: TransportConfiguration) {
        self.configuration = configuration
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        // Verification, host name included, is done by the trust hook (a custom verification
        // callback): NIOSSL's own host name check would overrule a policy that skips it.
        tls.certificateVerification = .noHostnameVerification
        // The trust hook's callback replaces BoringSSL's chain check, so BoringSSL needs no roots
        // of its own; its default would parse the system's whole CA bundle for every transport.
        tls.trustRoots = .certificates([])
        if let identity = configuration.clientIdentity {
            tls.certificateChain = identity.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(identity.privateKey)
        }
        self.tls = tls
        self.sslContexts = NIOLockedValueBox([configuration.httpVersion: Self.makeContext(tls, offering: configuration.httpVersion)])
    }

    /// The TLS context of connections that may speak `version`, or of an HTTPS proxy for `nil`.
    func sslContext(for version: HTTPVersionSelection?) throws -> NIOSSLContext {
        try self.sslContexts.withLockedValue { contexts in
            if let made = contexts[version] {
                return made
            }
            let made = Self.makeContext(self.tls, offering: version)
            contexts[version] = made
            return made
        }.get()
    }

    /// A context of this connection's own for `key`, whose server's request for a client
    /// certificate `provider` answers (BoringSSL asks through the certificate callback only
    /// when the server sends a CertificateRequest).
    private func sslContext(for key: PoolKey, askingFor provider: ClientIdentityProvider) throws -> NIOSSLContext {
        var tls = self.tls
        tls.applicationProtocols = key.httpVersion.applicationProtocols
        let challenge = ClientCertificateChallenge(host: key.host, port: key.port)
        tls.sslContextCallback = { _, promise in
            Task {
                var answer = NIOSSLContextConfigurationOverride()
                if let identity = await provider.identity(for: challenge) {
                    answer.certificateChain = identity.certificateChain.map { .certificate($0) }
                    answer.privateKey = .privateKey(identity.privateKey)
                }
                promise.succeed(answer)
            }
        }
        return try NIOSSLContext(configuration: tls)
    }

    private static func makeContext(_ tls: TLSConfiguration, offering version: HTTPVersionSelection?) -> Result<NIOSSLContext, any Error> {
        var tls = tls
        guard let version else {
            tls.applicationProtocols = HTTPVersionSelection.http1.applicationProtocols
            tls.certificateChain = []
            tls.privateKey = nil
            return Result { try NIOSSLContext(configuration: tls) }
        }
        tls.applicationProtocols = version.applicationProtocols
        return Result { try NIOSSLContext(configuration: tls) }
    }

    /// What a connection tells the pool after it is established. Each is called on the
    /// connection's event loop.
    struct Events: Sendable {
        /// A request ended; `reusable` when the connection may carry another.
        let requestFinished: @Sendable (_ reusable: Bool) -> Void
        /// An HTTP/2 server changed how many streams it takes at once.
        let capacityChanged: @Sendable (Int) -> Void
        /// An HTTP/2 server sent GOAWAY: the connection takes no new request.
        let goingAway: @Sendable () -> Void
    }

    /// Opens a connection to `key` on `eventLoop` (through its proxy, when it has one), in
    /// HTTP/1.1 or HTTP/2 as the configuration's ``HTTPVersionSelection`` and the server's ALPN
    /// choice decide, and says how many requests it carries at once (1, or the HTTP/2 server's
    /// stream limit).
    func makeConnection(
        id: PoolConnectionID,
        key: PoolKey,
        eventLoop: any EventLoop,
        events: Events
    ) -> EventLoopFuture<(connection: HTTPConnection, capacity: Int)> {
        let setup = MetricsRecorder()
        let connected = eventLoop.makePromise(of: (connection: HTTPConnection, capacity: Int).self)
        let connectTimeout = self.configuration.connectTimeout
        let timeout = eventLoop.scheduleTask(in: connectTimeout) {
            // Named by where the time went: the proxy (its tunnel), the socket, or the origin
            // (directly, or through a tunnel already open: its TLS handshake).
            if let proxy = key.proxy, setup.snapshot.proxyConnectEnd == nil || key.isForwardedByProxy {
                connected.fail(TransportError.proxyConnectionFailed(proxy: proxy.endpoint, reason: "connecting through it did not complete within \(connectTimeout.lupineSeconds) s"))
            } else if let socketPath = key.socketPath {
                connected.fail(TransportError.unixSocketUnusable(path: socketPath, reason: "the connection over it did not complete within \(connectTimeout.lupineSeconds) s"))
            } else {
                connected.fail(TransportError.connectTimeout(host: key.host, port: key.port, timeout: connectTimeout))
            }
        }
        connected.futureResult.whenComplete { _ in timeout.cancel() }
        // Each channel's outcome, by channel: one that the server or proxy closes at once has
        // no pipeline left to find it in when the connect completes.
        let outcomes = NIOLockedValueBox<[ObjectIdentifier: EventLoopFuture<(connection: HTTPConnection, capacity: Int)>]>([:])

        var bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
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
                    // The HTTP handlers go in before any byte is read: here for cleartext, and
                    // for TLS when ALPN has settled, while the negotiation handler holds back
                    // what came after the handshake (an HTTP/2 server's SETTINGS comes at once).
                    // Through a tunnel they go in once it is open, before its first byte is read.
                    let readiness = Readiness(eventLoop: channel.eventLoop)
                    try channel.pipeline.syncOperations.addHandler(readiness)
                    outcomes.withLockedValue { $0[ObjectIdentifier(channel)] = readiness.ready.futureResult }
                    try self.addSetupHandlers(on: channel, key: key, readiness: readiness, setup: setup) {
                        try self.addHandlers(on: channel, readiness: readiness, id: id, key: key, setup: setup, events: events)
                    }
                    // First in the pipeline, ahead of a tunnel or TLS handler that starts work on
                    // `channelActive`: the connect future completes later than that.
                    let tunnelled = key.proxy != nil && !key.isForwardedByProxy
                    let tlsToOrigin = key.proxy == nil && key.scheme == .https && key.trustEvaluator != nil
                    let timer = ConnectTimer(setup: setup, then: tunnelled ? [.proxyConnectStart] : tlsToOrigin ? [.secureConnectionStart] : [])
                    try channel.pipeline.syncOperations.addHandler(timer, position: .first)
                }
            }

        let channelFuture: EventLoopFuture<any Channel>
        let fixedAddress = self.configuration.hostAddresses[key.host.lowercased()] ?? key.host
        if let socketPath = key.socketPath {
            if let problem = UnixSocketCheck.problem(with: socketPath) {
                connected.fail(TransportError.unixSocketUnusable(path: socketPath, reason: problem))
                return connected.futureResult
            }
            channelFuture = bootstrap.connect(unixDomainSocketPath: socketPath)
        } else if let proxy = key.proxy {
            bootstrap = bootstrap.channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .resolver(TimedResolver(eventLoop: eventLoop, metrics: setup))
            channelFuture = bootstrap.connect(host: proxy.host, port: proxy.port)
        } else if let address = try? SocketAddress(ipAddress: fixedAddress, port: key.port) {
            channelFuture = bootstrap.channelOption(.tcpOption(.tcp_nodelay), value: 1).connect(to: address)
        } else {
            bootstrap = bootstrap.channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .resolver(TimedResolver(eventLoop: eventLoop, metrics: setup))
            channelFuture = bootstrap.connect(host: key.host, port: key.port)
        }

        channelFuture.whenComplete { result in
            switch result {
            case .failure(let error):
                connected.fail(Self.connectError(error, key: key, timeout: connectTimeout))
            case .success(let channel):
                // NIO completes the connect before it fires `channelActive`: a cleartext
                // connection, ready at once, may carry its first request before the timer runs.
                setup.mark(.connectEnd)
                connected.futureResult.whenFailure { _ in channel.close(promise: nil) }
                // Happy eyeballs may have initialised several channels: take the one that won.
                guard
                    let outcome = outcomes.withLockedValue({ outcomes in
                        defer { outcomes.removeAll() }
                        return outcomes[ObjectIdentifier(channel)]
                    })
                else {
                    connected.fail(TransportError.connectionClosedBeforeResponse)
                    return
                }
                outcome.whenComplete { connected.completeWith($0) }
            }
        }
        return connected.futureResult
    }

    /// Adds what a new channel needs before its connect completes: by `start`, the handlers that
    /// reach the origin at once, or, through a proxy, what opens the tunnel (or the TLS to the
    /// proxy) and runs `start` once it is open.
    private func addSetupHandlers(
        on channel: any Channel,
        key: PoolKey,
        readiness: Readiness,
        setup: MetricsRecorder,
        start: @escaping () throws -> Void
    ) throws {
        guard let proxy = key.proxy else {
            try start()
            return
        }
        guard !key.isForwardedByProxy else {
            // Over TLS to the proxy, the connection is ready once the handshake is.
            guard let handshake = try self.addProxyTLS(on: channel, proxy: proxy, readiness: readiness) else {
                try start()
                return
            }
            handshake.assumeIsolated().whenSuccess {
                do {
                    try start()
                } catch {
                    readiness.ready.fail(error)
                }
            }
            return
        }
        let established = channel.eventLoop.makePromise(of: Void.self)
        established.futureResult.assumeIsolated().whenComplete { result in
            setup.mark(.proxyConnectEnd)
            do {
                try result.get()
                try start()
            } catch {
                readiness.ready.fail(error)
            }
        }
        let tunnel: any ChannelHandler =
            proxy.speaksHTTP
            ? ProxyTunnel(
                proxy: proxy,
                handshake: channel.eventLoop.makeSucceededFuture(HTTPConnectHandshake(proxy: proxy, host: key.host, port: key.port)),
                established: established
            )
            : ProxyTunnel(
                proxy: proxy,
                handshake: SOCKS5Handshake.prepare(proxy: proxy, host: key.host, port: key.port, on: channel.eventLoop),
                established: established
            )
        // Ahead of the readiness handler, so that a proxy closing mid-handshake is
        // reported as the proxy's failure, not as a connection closed.
        try channel.pipeline.syncOperations.addHandler(tunnel, position: .first)
        _ = try self.addProxyTLS(on: channel, proxy: proxy, readiness: readiness)
    }

    /// For an HTTPS proxy, puts TLS to the proxy under everything else on `channel`, its
    /// certificate judged by the configuration's proxy trust hook; a failed handshake fails the
    /// connection naming the proxy. Returns when the handshake completes (`nil` for a proxy
    /// spoken to in the clear).
    private func addProxyTLS(on channel: any Channel, proxy: Proxy, readiness: Readiness) throws -> EventLoopFuture<Void>? {
        guard proxy.kind == .https else { return nil }
        let rejection = NIOLockedValueBox<(reason: String, chain: [[UInt8]])?>(nil)
        let handler = try Self.makeTLSHandler(
            context: self.sslContext(for: nil),
            host: proxy.host,
            evaluator: self.configuration.proxyTrustEvaluator,
            rejection: rejection
        )
        let observer = TLSHandshakeObserver(eventLoop: channel.eventLoop)
        try channel.pipeline.syncOperations.addHandler(observer, position: .first)
        try channel.pipeline.syncOperations.addHandler(handler, position: .first)
        let ready = readiness.ready
        observer.handshakeCompleted.whenFailure { error in
            let reason =
                if let rejected = rejection.withLockedValue({ $0 }) {
                    "its certificate is not trusted: \(rejected.reason)"
                } else {
                    "the TLS handshake with it failed: \(TransportErrorWords.tlsFailure(error))"
                }
            ready.fail(TransportError.proxyFailed(proxy: proxy.endpoint, reason: reason))
        }
        return observer.handshakeCompleted
    }

    /// Adds the handlers that run on `channel` once it reaches the origin (directly, or through
    /// a proxy's tunnel): TLS with the trust hook for `https`, then those of the HTTP version.
    private func addHandlers(
        on channel: any Channel,
        readiness: Readiness,
        id: PoolConnectionID,
        key: PoolKey,
        setup: MetricsRecorder,
        events: Events
    ) throws {
        let sync = channel.pipeline.syncOperations
        guard key.scheme == .https, let evaluator = key.trustEvaluator else {
            try sync.addHandler(ByteCountingHandler())
            readiness.ready.completeWith(try self.speak(on: channel, id: id, key: key, negotiated: nil, setup: setup, events: events))
            return
        }
        // Through a tunnel the handshake starts now; straight to the origin, when the connect
        // completes (marked there by the `ConnectTimer`).
        if channel.isActive {
            setup.mark(.secureConnectionStart)
        }
        let trustRejection = NIOLockedValueBox<(reason: String, chain: [[UInt8]])?>(nil)
        let tlsHandler = try Self.makeTLSHandler(
            context: key.clientIdentityProvider.map { try self.sslContext(for: key, askingFor: $0) } ?? self.sslContext(for: key.httpVersion),
            host: key.host,
            evaluator: evaluator,
            rejection: trustRejection
        )
        try sync.addHandler(tlsHandler)
        let observer = TLSHandshakeObserver(eventLoop: channel.eventLoop)
        try sync.addHandler(observer)
        // This channel's outcome, which the factory takes only from the channel happy eyeballs picked.
        let ready = readiness.ready
        observer.handshakeCompleted.whenFailure { error in
            if let rejection = trustRejection.withLockedValue({ $0 }) {
                ready.fail(TransportError.serverTrustRejected(host: key.host, reason: rejection.reason, certificateChain: rejection.chain))
            } else {
                ready.fail(TransportError.tlsHandshakeFailed(host: key.host, underlying: error))
            }
        }
        try sync.addHandler(ByteCountingHandler())
        try sync.addHandler(
            ApplicationProtocolNegotiationHandler { result, channel in
                setup.mark(.secureConnectionEnd)
                let negotiated: String? = if case .negotiated(let name) = result { name } else { nil }
                do {
                    // Succeeded at once: what the server sent after the handshake
                    // (its SETTINGS) goes on to the handlers just added.
                    readiness.ready.completeWith(
                        try self.speak(on: channel, id: id, key: key, negotiated: negotiated, setup: setup, events: events)
                    )
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    readiness.ready.fail(error)
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
        )
    }

    /// Adds the handlers of the HTTP version the connection speaks, and says when it is ready:
    /// at once for HTTP/1.1, at the server's first SETTINGS for HTTP/2.
    private func speak(
        on channel: any Channel,
        id: PoolConnectionID,
        key: PoolKey,
        negotiated: String?,
        setup: MetricsRecorder,
        events: Events
    ) throws -> EventLoopFuture<(connection: HTTPConnection, capacity: Int)> {
        let sync = channel.pipeline.syncOperations
        let decompressionLimit = self.configuration.decompressesResponses ? self.configuration.decompressionLimit : nil
        // A proxy that forwards requests is spoken to in HTTP/1.1, as curl does.
        guard !key.isForwardedByProxy, key.httpVersion.speaksHTTP2(scheme: key.scheme, negotiated: negotiated) else {
            try sync.addHTTPClientHandlers()
            if let decompressionLimit {
                try sync.addHandler(ResponseDecoder(limit: decompressionLimit))
            }
            let handler = HTTPClientRequestHandler(
                eventLoop: channel.eventLoop,
                counters: try sync.handler(type: ByteCountingHandler.self),
                onRequestFinished: events.requestFinished
            )
            try sync.addHandler(handler)
            let requests = HTTPConnection.Requests.http1(NIOLoopBound(handler, eventLoop: channel.eventLoop))
            let connection = HTTPConnection(id: id, channel: channel, requests: requests, setup: setup, isProxied: key.proxy != nil)
            return channel.eventLoop.makeSucceededFuture((connection, 1))
        }
        let http2 = NIOHTTP2Handler(
            mode: .client,
            eventLoop: channel.eventLoop,
            connectionConfiguration: Self.http2Connection,
            streamConfiguration: Self.http2Stream
        ) { stream in
            // Push is off in our SETTINGS, so a server never opens a stream: one that does is refused.
            stream.close()
        }
        try sync.addHandler(FlushCoalescer())
        try sync.addHandler(http2)
        let watcher = HTTP2ConnectionWatcher(eventLoop: channel.eventLoop)
        try sync.addHandler(watcher)
        let streams = HTTP2Streams(
            multiplexer: try http2.syncMultiplexer(),
            channel: channel,
            scheme: key.scheme,
            decompressionLimit: decompressionLimit,
            onStreamFinished: events.requestFinished
        )
        watcher.onCapacityChanged = events.capacityChanged
        watcher.onGoingAway = { lastProcessedStream in
            streams.goingAway(lastProcessedStream: lastProcessedStream)
            events.goingAway()
        }
        let requests = HTTPConnection.Requests.http2(NIOLoopBound(streams, eventLoop: channel.eventLoop))
        let connection = HTTPConnection(id: id, channel: channel, requests: requests, setup: setup, isProxied: key.proxy != nil)
        return watcher.ready.flatMapErrorThrowing { error in
            throw TransportError.invalidResponse(reason: "the server did not answer in HTTP/2: \(HTTP2StreamCodec.reason(error))")
        }.map { capacity in (connection, capacity) }
    }

    /// Our HTTP/2 SETTINGS: no server push, header blocks up to 64 KiB (an HPACK bomb past that
    /// fails its stream), and 256 KiB of body in flight per stream (a download streams with about
    /// that much held), 4 MiB per connection.
    private static let http2Connection: NIOHTTP2Handler.ConnectionConfiguration = {
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = [
            HTTP2Setting(parameter: .enablePush, value: 0),
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 64 * 1024),
            HTTP2Setting(parameter: .initialWindowSize, value: Self.http2Stream.targetWindowSize),
        ]
        configuration.targetWindowSize = 4 * 1024 * 1024
        return configuration
    }()

    private static let http2Stream: NIOHTTP2Handler.StreamConfiguration = {
        var configuration = NIOHTTP2Handler.StreamConfiguration()
        configuration.targetWindowSize = 256 * 1024
        // A request body is written in parts of up to 64 KiB: one part in flight, as over HTTP/1.1.
        configuration.outboundBufferSizeHighWatermark = NIOTransport.largestQueuedBody
        configuration.outboundBufferSizeLowWatermark = NIOTransport.largestQueuedBody / 2
        return configuration
    }()

    private static func makeTLSHandler(
        context: NIOSSLContext,
        host: String,
        evaluator: ServerTrustEvaluator,
        rejection: NIOLockedValueBox<(reason: String, chain: [[UInt8]])?>
    ) throws -> NIOSSLClientHandler {
        // SNI carries names only, never literal addresses.
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return try NIOSSLClientHandler(
            context: context,
            serverHostname: isAddress ? nil : host,
            customVerificationCallback: { certificates, promise in
                let chain = certificates.map { (try? $0.toDERBytes()) ?? [] }
                let challenge = ServerTrustChallenge(host: host, certificateChain: chain)
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
        case _ where key.proxy != nil:
            let proxy = key.proxy?.endpoint ?? ""
            switch error {
            case ChannelError.connectTimeout:
                return .proxyConnectionFailed(proxy: proxy, reason: "connecting to it timed out after \(timeout.lupineSeconds) s")
            case let error as NIOConnectionError:
                guard let first = error.connectionErrors.first else {
                    return .proxyFailed(proxy: proxy, reason: "its name could not be resolved")
                }
                return .proxyConnectionFailed(proxy: proxy, reason: TransportErrorWords.connectFailure(first.error, host: key.proxy?.host ?? "", port: key.proxy?.port ?? 0))
            default:
                return .proxyConnectionFailed(proxy: proxy, reason: TransportErrorWords.connectFailure(error, host: key.proxy?.host ?? "", port: key.proxy?.port ?? 0))
            }
        case _ where key.socketPath != nil:
            return .unixSocketUnusable(path: key.socketPath ?? "", reason: TransportErrorWords.describe(error))
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
