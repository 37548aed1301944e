import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP2
import NIOHTTPTypes
import NIOHTTPTypesHTTP2
import NIOSSL

/// An HTTP/2 listener's connections when ``LupineTestServer/HTTP2Faults`` name settings of their
/// own (a small `MAX_CONCURRENT_STREAMS`, a tiny initial window) or a reset limit, which
/// Hummingbird's HTTP/2 channel does not let a server set: NIOHTTP2 with those settings, each stream served by
/// Hummingbird's HTTP/1 request loop. Over TLS only `h2` is offered by ALPN. The streams open on
/// each connection are counted in the ``ConnectionRegistry``.
struct HTTP2SettingsChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
        let streams: NIOHTTP2Handler.AsyncStreamMultiplexer<HTTP1Channel.Value>
    }

    /// Serves one stream's request as an HTTP/1 connection carrying one request.
    let stream: HTTP1Channel
    let settings: HTTP2Settings
    let maximumResetStreams: Int?
    let tls: NIOSSLContext?
    let registry: ConnectionRegistry

    init(responder: @escaping HTTPChannelHandler.Responder, faults: LupineTestServer.HTTP2Faults, tls: TLSConfiguration?, registry: ConnectionRegistry) throws {
        self.stream = HTTP1Channel(responder: responder)
        var settings = nioDefaultSettings.filter { $0.parameter != .maxConcurrentStreams }
        settings.append(HTTP2Setting(parameter: .maxConcurrentStreams, value: faults.maximumConcurrentStreams ?? 100))
        if let window = faults.initialWindowSize {
            settings.append(HTTP2Setting(parameter: .initialWindowSize, value: window))
        }
        self.settings = settings
        self.maximumResetStreams = faults.maximumResetStreams
        if var tls {
            tls.applicationProtocols = ["h2"]
            self.tls = try NIOSSLContext(configuration: tls)
        } else {
            self.tls = nil
        }
        self.registry = registry
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            if let tls = self.tls {
                try sync.addHandler(NIOSSLServerHandler(context: tls))
            }
            var configuration = NIOHTTP2Handler.Configuration()
            configuration.connection.initialSettings = self.settings
            if let maximumResetStreams = self.maximumResetStreams {
                // The late frames of streams a client reset count as stream errors once more than
                // NIOHTTP2's 32 most recent resets are behind them: the same allowance.
                configuration.stream.streamResetFrameRateLimit.maximumCount = maximumResetStreams
                configuration.stream.streamErrorRateLimit.maximumCount = maximumResetStreams
                configuration.connection.maximumConnectionGlitches = maximumResetStreams
            }
            let streams = try sync.configureAsyncHTTP2Pipeline(
                mode: .server,
                streamDelegate: StreamCounter(connection: channel, registry: self.registry),
                configuration: configuration
            ) { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTPServerCodec())
                    return try HTTP1Channel.Value(wrappingChannelSynchronously: stream)
                }
            }
            return Value(channel: channel, streams: streams)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            try await withThrowingDiscardingTaskGroup { group in
                for try await stream in value.streams.inbound {
                    group.addTask { await self.stream.handle(value: stream, logger: logger) }
                }
            }
        } catch {
            logger.debug("HTTP/2 connection ended: \(error)")
        }
    }

    /// Counts the connection's open streams in the registry.
    struct StreamCounter: NIOHTTP2StreamDelegate {
        let connection: any Channel
        let registry: ConnectionRegistry

        func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {
            self.registry.streamOpened(on: self.connection)
        }

        func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
            self.registry.streamClosed(on: self.connection)
        }
    }
}
