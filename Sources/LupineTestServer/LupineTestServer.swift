import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

/// An httpbin-compatible HTTP server run in-process on loopback, for testing HTTP clients.
///
/// It has two listeners on kernel-chosen ports:
/// - the main listener (``baseURL``), a Hummingbird server with httpbin's endpoints (`/get`,
///   `/post`, `/bytes/:n`, `/redirect/:n`, `/basic-auth/:user/:passwd`, `/gzip`, ...), optionally
///   over TLS with a certificate chain generated at start, and endpoints of ours that count
///   requests per key and fail a given number of times (`/retry/:key/fail/:n`,
///   `/retry/:key/retry-after/:n`, `/bearer/:token`; see ``attempts(forKey:)``);
/// - the fault listener (``faultsBaseURL``), plain HTTP written by hand to misbehave on purpose
///   (closing mid-body, stalling, malformed status lines, oversized headers, ...).
///
/// Every response from either listener carries `X-Lupine-Connection-ID`, a per-server number
/// assigned when the connection was accepted.
///
/// Limits bound what a misbehaving client can hold: a connection that sends no complete request
/// head within ``Configuration/requestHeadTimeout`` is closed, connections beyond
/// ``Configuration/maximumConnections`` are refused, and the echo endpoints keep request bodies in
/// memory only within ``Configuration/maximumRequestBodySize`` (413 beyond it) and
/// ``Configuration/requestBodyBudget`` (503 beyond it; see ``requestBodies``).
///
/// A request carrying `Expect: 100-continue` gets the interim `100 Continue` when its endpoint
/// starts reading the body (never on HTTP/1.0, nor for a body refused on its headers, which gets
/// the 413 or 503 alone); any other expectation is answered 417 and its connection closed.
///
/// ```swift
/// let server = try await LupineTestServer.start()
/// defer { Task { await server.stop() } }
/// let url = server.baseURL.appending(path: "get")
/// ```
public final class LupineTestServer: Sendable {
    /// The main listener's port.
    public let port: Int
    /// The main listener's URL, such as `http://127.0.0.1:PORT` or `https://[::1]:PORT`.
    public let baseURL: URL
    /// The fault listener's URL (always plain HTTP).
    public let faultsBaseURL: URL
    /// In TLS mode with a generated chain, the root CA certificate (DER) that the served leaf chains to.
    public let certificateAuthorityDER: [UInt8]?
    /// In TLS mode, the generated root CA certificate (PEM), for tools such as `curl --cacert`.
    public let certificateAuthorityPEM: String?
    /// In TLS mode, the served leaf certificate (DER); the generated one is valid for `localhost`,
    /// `127.0.0.1` and `::1`.
    public let leafCertificateDER: [UInt8]?

    private let registry: ConnectionRegistry
    private let identity: ServerTLSIdentity?
    private let bodyBudget: RequestBodyBudget
    private let attempts: AttemptCounter
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, any Error>
    private let faultListener: FaultListener
    private let stopTask = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// How long ``stop()`` waits for the main server to wind down before cancelling it.
    private static let shutdownGrace: Duration = .milliseconds(250)

    private init(
        port: Int,
        baseURL: URL,
        faultsBaseURL: URL,
        identity: ServerTLSIdentity?,
        registry: ConnectionRegistry,
        bodyBudget: RequestBodyBudget,
        attempts: AttemptCounter,
        serviceGroup: ServiceGroup,
        runTask: Task<Void, any Error>,
        faultListener: FaultListener
    ) {
        self.port = port
        self.baseURL = baseURL
        self.faultsBaseURL = faultsBaseURL
        self.certificateAuthorityDER = identity?.authority?.certificateDER
        self.certificateAuthorityPEM = identity?.authority?.certificatePEM
        self.leafCertificateDER = identity?.chain.leafDER
        self.identity = identity
        self.registry = registry
        self.bodyBudget = bodyBudget
        self.attempts = attempts
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.faultListener = faultListener
    }

    /// Starts both listeners and returns once they accept connections.
    ///
    /// Call ``stop()`` when done. Throws ``StartupError/invalidConfiguration(_:)`` when a limit in
    /// `configuration` is out of range.
    public static func start(_ configuration: Configuration = .init()) async throws -> LupineTestServer {
        try configuration.validate()
        var logger = Logger(label: "LupineTestServer")
        logger.logLevel = .critical
        let registry = ConnectionRegistry(maximumOpen: configuration.maximumConnections)
        let bodyBudget = RequestBodyBudget(
            maximumRequestSize: configuration.maximumRequestBodySize,
            capacity: configuration.requestBodyBudget
        )
        let identity: ServerTLSIdentity?
        if let chain = configuration.certificateChain {
            identity = ServerTLSIdentity(chain: chain)
        } else {
            identity = configuration.tls ? try ServerTLSIdentity() : nil
        }
        let scheme = identity == nil ? "http" : "https"

        let router = Router(context: TestServerRequestContext.self, options: [.autoGenerateHeadEndpoints])
        router.add(middleware: ConnectionIDMiddleware(registry: registry))
        if configuration.http2 {
            router.add(middleware: HTTP2FaultMiddleware(faults: configuration.http2Faults))
        }
        router.add(middleware: ExpectationMiddleware())
        let attempts = AttemptCounter()
        HTTPBinRoutes(scheme: scheme, bodyBudget: bodyBudget, attempts: attempts).register(on: router)

        let (ports, portContinuation) = AsyncStream.makeStream(of: Int?.self)
        let application = Application(
            router: router,
            server: try serverBuilder(configuration: configuration, identity: identity, registry: registry),
            configuration: ApplicationConfiguration(
                address: configuration.unixSocketPath.map { .unixDomainSocket(path: $0) } ?? .hostname(configuration.host, port: configuration.port)
            ),
            onServerRunning: { channel in
                portContinuation.yield(configuration.unixSocketPath == nil ? channel.localAddress?.port : 0)
            },
            logger: logger
        )
        let serviceGroup = ServiceGroup(
            configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger)
        )
        let runTask = Task {
            defer { portContinuation.finish() }
            try await serviceGroup.run()
        }

        var iterator = ports.makeAsyncIterator()
        guard let boundPort = await iterator.next() else {
            try await runTask.value
            throw StartupError.serverExitedBeforeListening
        }
        do {
            guard let port = boundPort else { throw StartupError.noBoundPort }
            let faultListener = try await FaultListener.bind(
                host: configuration.host,
                headTimeout: TimeAmount(configuration.requestHeadTimeout),
                registry: registry,
                group: MultiThreadedEventLoopGroup.singleton
            )
            return LupineTestServer(
                port: port,
                baseURL: try configuration.unixSocketPath.map { try unixURL(scheme: scheme, path: $0) } ?? url(scheme: scheme, host: configuration.host, port: port),
                faultsBaseURL: try url(scheme: "http", host: configuration.host, port: faultListener.port),
                identity: identity,
                registry: registry,
                bodyBudget: bodyBudget,
                attempts: attempts,
                serviceGroup: serviceGroup,
                runTask: runTask,
                faultListener: faultListener
            )
        } catch {
            await serviceGroup.triggerGracefulShutdown()
            _ = await runTask.result
            throw error
        }
    }

    /// A client certificate and key signed by the server's generated root, which a listener
    /// started with ``Configuration/requiresClientCertificates`` takes (mutual TLS).
    public func issueClientCertificate(commonName: String = "Lupine Test Client") throws -> IssuedCertificate {
        guard let identity = self.identity else {
            throw StartupError.invalidConfiguration("the server does not speak TLS")
        }
        return try identity.issueClientCertificate(commonName: commonName)
    }

    /// Connection counts over both listeners.
    public var connections: ConnectionStatistics {
        registry.statistics
    }

    /// Request-body bytes the echo endpoints hold in memory now and at most.
    public var requestBodies: RequestBodyStatistics {
        bodyBudget.statistics
    }

    /// How many requests the retry and bearer endpoints counted under `key` (`bearer-<token>` for
    /// `/bearer/:token`) since it was last reset; the same number `/retry/:key/attempts` answers.
    public func attempts(forKey key: String) -> Int {
        attempts.count(key)
    }

    /// How many requests the image endpoints received for `path`, given with its query as sent
    /// (`/image/png`, `/image/png?size=850x300`), since the server started.
    public func requests(forPath path: String) -> Int {
        attempts.count(HTTPBinRoutes.imageRequestKey(path))
    }

    /// Restarts `accepted` from zero and `peakOpen` from the connections open now.
    public func resetConnectionStatistics() {
        registry.resetStatistics()
    }

    /// Closes both listeners and every open connection, stalled ones included.
    ///
    /// Returns promptly; calling it again, or concurrently, waits for the same shutdown.
    public func stop() async {
        let task = stopTask.withLockedValue { task in
            if let task { return task }
            let newTask = Task { await self.shutDown() }
            task = newTask
            return newTask
        }
        await task.value
    }

    private func shutDown() async {
        await serviceGroup.triggerGracefulShutdown()
        await faultListener.close()
        await registry.closeAll()
        let runTask = self.runTask
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                _ = await runTask.result
            }
            group.addTask {
                guard (try? await Task.sleep(for: Self.shutdownGrace)) != nil else { return }
                runTask.cancel()
            }
            await group.next()
            group.cancelAll()
        }
    }

    private static func serverBuilder(
        configuration: Configuration,
        identity: ServerTLSIdentity?,
        registry: ConnectionRegistry
    ) throws -> HTTPServerBuilder {
        let headTimeout = TimeAmount(configuration.requestHeadTimeout)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [HTTPConnectionDeadlineHandler(timeout: headTimeout)],
            idleTimeout: configuration.idleTimeout.map(TimeAmount.init)
        )
        let tlsConfiguration = try identity?.serverConfiguration(requiringClientCertificates: configuration.requiresClientCertificates)
        if configuration.http2 {
            // HTTP/1.1's connections close once no head comes within the deadline after the
            // last response; an HTTP/2 one says GOAWAY (and PING) once it has had no stream for
            // as long, and closes as long again after the client acknowledged the PING.
            let idle = min(configuration.idleTimeout ?? configuration.requestHeadTimeout, configuration.requestHeadTimeout)
            let http2 = HTTP2ChannelConfiguration(idleTimeout: idle, gracefulCloseTimeout: idle, streamConfiguration: http1)
            return HTTPServerBuilder { responder in
                if configuration.http2Faults.configuresNIOHTTP2 {
                    let channel = try HTTP2SettingsChannel(responder: responder, faults: configuration.http2Faults, tls: tlsConfiguration, registry: registry)
                    return TrackedChildChannel(base: channel, registry: registry)
                }
                guard let tlsConfiguration else {
                    return TrackedChildChannel(base: HTTP2Channel(responder: responder, configuration: http2), registry: registry)
                }
                let negotiating = try HTTP2UpgradeChannel(tlsConfiguration: tlsConfiguration, configuration: http2, responder: responder)
                return TrackedChildChannel(base: negotiating, registry: registry)
            }
        }
        return HTTPServerBuilder { responder in
            let base = HTTP1Channel(responder: responder, configuration: http1)
            guard let tlsConfiguration else {
                return TrackedChildChannel(base: ContinueAnsweringChildChannel(base: base), registry: registry)
            }
            let secured = try TLSChannel(base, tlsConfiguration: tlsConfiguration)
            return TrackedChildChannel(base: ContinueAnsweringChildChannel(base: secured), registry: registry)
        }
    }

    /// `scheme+unix://` and the socket's path, percent-encoded, as the host.
    private static func unixURL(scheme: String, path: String) throws -> URL {
        guard let encoded = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics),
            let url = URL(string: "\(scheme)+unix://\(encoded)")
        else {
            throw StartupError.invalidHost(path)
        }
        return url
    }

    private static func url(scheme: String, host: String, port: Int) throws -> URL {
        let authorityHost = host.contains(":") ? "[\(host)]" : host
        guard let url = URL(string: "\(scheme)://\(authorityHost):\(port)") else {
            throw StartupError.invalidHost(host)
        }
        return url
    }
}
