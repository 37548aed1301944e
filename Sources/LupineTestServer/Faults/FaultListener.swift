import NIOCore
import NIOPosix

/// The raw SwiftNIO listener that serves ``FaultEndpoint``s, which a well-behaved HTTP server
/// such as Hummingbird cannot produce.
struct FaultListener: Sendable {
    private let channel: any Channel

    /// The bound port.
    let port: Int

    /// Binds a listener on `host` at a kernel-chosen port, registering each connection with
    /// `registry` and closing those that send no complete request head within `headTimeout`.
    static func bind(
        host: String,
        headTimeout: TimeAmount,
        registry: ConnectionRegistry,
        group: any EventLoopGroup
    ) async throws -> FaultListener {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connectionID = registry.register(channel)
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(FaultRequestDecoder()),
                        FaultConnectionHandler(connectionID: connectionID, headTimeout: headTimeout)
                    )
                }
            }
            .bind(host: host, port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw LupineTestServer.StartupError.noBoundPort
        }
        return FaultListener(channel: channel, port: port)
    }

    /// Stops accepting connections. Open connections are closed by the registry.
    func close() async {
        try? await channel.close()
    }
}
