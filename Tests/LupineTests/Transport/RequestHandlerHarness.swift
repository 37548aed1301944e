import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1

@testable import Lupine
@testable import LupineTransport

/// An ``HTTPClientRequestHandler`` alone on an in-memory channel: the test plays the server by
/// writing response parts inbound and reading request parts outbound, and moves the channel's
/// clock by hand. The channel is NIO's async testing channel (the thread-safe sibling of
/// `EmbeddedChannel`, with the same virtual clock), because a response body is consumed from a
/// Swift task whose demand reaches the event loop as the real consumer's does.
struct RequestHandlerHarness {
    let channel: NIOAsyncTestingChannel
    let handler: NIOLoopBound<HTTPClientRequestHandler>
    /// The `reusable` flag of each request that finished, in order.
    let finished: NIOLockedValueBox<[Bool]>
    /// The socket reads let through to the channel.
    let reads: NIOLockedValueBox<Int>

    static func make() async throws -> RequestHandlerHarness {
        let channel = NIOAsyncTestingChannel()
        let finished = NIOLockedValueBox<[Bool]>([])
        let reads = NIOLockedValueBox(0)
        let handler = try await channel.testingEventLoop.executeInContext {
            let handler = HTTPClientRequestHandler(
                eventLoop: channel.eventLoop,
                counters: ByteCountingHandler(),
                onRequestFinished: { reusable in finished.withLockedValue { $0.append(reusable) } }
            )
            try channel.pipeline.syncOperations.addHandler(ReadCounter(reads: reads))
            try channel.pipeline.syncOperations.addHandler(handler)
            return NIOLoopBound(handler, eventLoop: channel.eventLoop)
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).get()
        return RequestHandlerHarness(channel: channel, handler: handler, finished: finished, reads: reads)
    }

    /// Closes the channel when a test leaves it open (a connection kept for reuse), so its
    /// pipeline, which holds the handler and is held by it, is torn down.
    func close() async throws {
        guard self.channel.isActive else { return }
        try await self.channel.close()
    }

    /// Starts request `id` and returns its response head's future.
    func start(
        _ id: Int = 0,
        method: HTTPMethod = .GET,
        body: PreparedRequest.Body = .none,
        readTimeout: TimeAmount? = nil
    ) async throws -> EventLoopFuture<TransportResponse> {
        let request = PreparedRequest(
            head: HTTPRequestHead(version: .http1_1, method: method, uri: "/"),
            url: URL(string: "http://127.0.0.1/")!,
            body: body,
            metrics: MetricsRecorder(),
            bodyProgress: nil,
            readTimeout: readTimeout,
            deadline: nil
        )
        let channel = self.channel
        return try await self.onLoop { handler in
            let promise = channel.eventLoop.makePromise(of: TransportResponse.self)
            handler.start(request, id: id, headPromise: promise, ended: nil)
            return promise.futureResult
        }
    }

    /// Runs `body` with the handler on the event loop.
    func onLoop<Result: Sendable>(_ body: @escaping @Sendable (HTTPClientRequestHandler) -> Result) async throws -> Result {
        let handler = self.handler
        return try await self.channel.testingEventLoop.executeInContext { body(handler.value) }
    }

    /// The server sends `parts`.
    func respond(_ parts: HTTPClientResponsePart...) async throws {
        for part in parts {
            try await self.channel.writeInbound(part)
        }
    }

    /// Every request part written so far, as "head", "body:N" and "end".
    func written() async throws -> [String] {
        var parts: [String] = []
        while let part = try await self.channel.readOutbound(as: HTTPClientRequestPart.self) {
            switch part {
            case .head: parts.append("head")
            case .body(.byteBuffer(let bytes)): parts.append("body:\(bytes.readableBytes)")
            case .body: parts.append("body:file")
            case .end: parts.append("end")
            }
        }
        return parts
    }

    /// The channel asks for a socket read, as NIO does when it is ready for more.
    func askForRead() async throws {
        try await self.channel.testingEventLoop.executeInContext { [channel] in channel.read() }
    }
}

/// Counts the reads that reach the socket end of the pipeline.
final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = HTTPClientRequestPart

    private let reads: NIOLockedValueBox<Int>

    init(reads: NIOLockedValueBox<Int>) {
        self.reads = reads
    }

    func read(context: ChannelHandlerContext) {
        self.reads.withLockedValue { $0 += 1 }
        context.read()
    }
}

extension HTTPClientResponsePart {
    static func head(_ status: HTTPResponseStatus, _ headers: HTTPHeaders = [:]) -> HTTPClientResponsePart {
        .head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))
    }
}
