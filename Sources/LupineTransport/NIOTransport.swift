import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

// The life of one request in this engine, and the type that owns each step:
//
//     NIOTransport.execute(_:)           validates the head, derives the PoolKey, makes the Attempt
//       run(_:body:replayable:produce:)  one attempt, and a replay on a new connection when a
//       |                                reused one was closed before any response byte
//       send(_:attempt:isRetry:produce:) a PendingRequest, leased from the pool
//         ConnectionPool.lease           one event, one lock: ConnectionPoolStateMachine decides
//         |  connection free ----------> .deliver at once, on the caller's thread
//         |  none free ----------------> queued (retries at the head), .createConnection while
//         |                              fewer connect than wait, up to the per-host limit;
//         |                              ConnectionFactory: resolve, connect, TLS + trust hook
//         |  a connection frees -------> .deliver to the next waiter on that connection's loop
//         |  deadline / cancellation --> the pool's one timer or abandon(_:reason:): .fail
//         PendingRequest.deliver         starts the request on HTTPConnection, or declines the
//         |                              connection (cancelled as it came) and it goes back
//         HTTPClientRequestHandler       performs HTTP1RequestStateMachine's actions: writes head
//         |                              and body with backpressure, reads the response head
//       <- TransportResponse             head handed to the caller; the body streams through
//                                        ResponseBody, reads held back while nobody asks
//         request ends ----------------> connectionReleased(reusable:): the connection serves
//                                        the next waiter, parks with an idle deadline, or closes
//
// Cancellation reaches every stage: in the queue (the waiter fails), as it is handed over (the
// connection is declined), and on the wire (the handler closes the connection mid-exchange).

/// Lupine's HTTP/1.1 and HTTP/2 engine on SwiftNIO: a connection pool with keep-alive reuse and per-host
/// limits, streamed request and response bodies with backpressure, decompression, timeouts, TLS
/// with a trust hook, and per-request metrics.
///
/// Create one per configuration and call ``shutdown()`` when done, or use ``shared``, which
/// needs no shutdown. A transport that is never shut down leaks its idle connections until
/// their idle timeout, and nothing worse.
public final class NIOTransport: Transport {
    /// A process-wide transport with the default configuration. ``shutdown()`` does nothing on it.
    public static let shared = NIOTransport(configuration: TransportConfiguration(), isShared: true)

    /// The settings this transport was created with.
    public let configuration: TransportConfiguration
    let pool: ConnectionPool
    private let isShared: Bool

    /// Creates a transport running on `eventLoopGroup` (NIO's process-wide group by default).
    public convenience init(
        configuration: TransportConfiguration = TransportConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.init(configuration: configuration, eventLoopGroup: eventLoopGroup, isShared: false)
    }

    private init(
        configuration: TransportConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        isShared: Bool
    ) {
        self.configuration = configuration
        self.pool = ConnectionPool(configuration: configuration, eventLoopGroup: eventLoopGroup)
        self.isShared = isShared
    }

    public func shutdown() async {
        guard !self.isShared else { return }
        await self.pool.shutdown()
    }

    public func execute(_ request: TransportRequest) async throws -> TransportResponse {
        // A pooled connection would start the request at once, and a cancel only reach it on the wire.
        if request.cancellation.isCancelled || Task.isCancelled {
            throw TransportError.cancelled
        }
        // NIO traps on a non-ASCII name and refuses CR, LF and NUL as if the server were at fault.
        if let violation = HeaderFieldValidation.firstViolation(in: request.headers) {
            throw TransportError.invalidHeader(name: violation.name, reason: violation.reason)
        }
        let key = try PoolKey(
            url: request.url,
            trustEvaluator: request.serverTrustEvaluator ?? self.configuration.serverTrustEvaluator,
            socketPath: self.configuration.unixSocketPath,
            proxies: request.proxy ?? self.configuration.proxy,
            httpVersion: request.httpVersion ?? self.configuration.httpVersion,
            clientIdentityProvider: request.clientIdentityProvider ?? self.configuration.clientIdentityProvider
        )
        let metrics = MetricsRecorder()
        let deadline = (request.timeout ?? self.configuration.requestTimeout).map { (NIODeadline.now() + $0, $0) }
        var head = HTTPRequestHead(
            version: .http1_1,
            method: request.method,
            uri: Self.requestTarget(of: request.url),
            headers: request.headers
        )
        if head.headers.callersHost == nil {
            head.headers.replaceOrAdd(name: "Host", value: key.hostHeader)
        }
        if key.isForwardedByProxy {
            // RFC 9112 §3.2.2: to a proxy, the absolute form; its credentials go to it alone.
            head.uri = Self.absoluteTarget(of: request.url, key: key)
            if let authorization = key.proxy?.basicAuthorization, !head.headers.contains(name: "Proxy-Authorization") {
                head.headers.add(name: "Proxy-Authorization", value: authorization)
            }
        }
        let attempt = Attempt(
            head: head,
            url: request.url,
            key: key,
            metrics: metrics,
            bodyProgress: request.bodyProgress,
            deadline: deadline,
            cancellation: request.cancellation
        )

        switch request.body?.source {
        case nil:
            return try await self.run(attempt, body: .none, replayable: true, produce: nil)
        case .bytes(let bytes) where bytes.readableBytes > Self.largestQueuedBody:
            // Sent as a stream: queued whole, the request would end (a 2xx answer that came
            // early) with the body still on its way, and an early refusal could not stop it.
            return try await self.run(attempt, body: .streamed(length: bytes.readableBytes), replayable: true, produce: Self.producer(of: bytes))
        case .bytes(let bytes):
            return try await self.run(attempt, body: .bytes(bytes), replayable: true, produce: nil)
        case .stream(let length, let produce):
            return try await self.run(attempt, body: .streamed(length: length), replayable: false, produce: produce)
        case .file(let path, let chunkSize):
            let file = FileBody(path: path, chunkSize: chunkSize)
            return try await file.withOpenFile { length, produce in
                // A file read to its end (a FIFO) cannot be read again for a retry.
                try await self.run(attempt, body: .streamed(length: length), replayable: length != nil, produce: produce)
            }
        }
    }

    /// The largest body in memory written at once, with its head: what a channel buffers before
    /// it is no longer writable (NIO's default high watermark).
    static let largestQueuedBody = 64 * 1024

    /// A producer that writes `bytes` in parts of ``largestQueuedBody``, from the start each time.
    private static func producer(of bytes: ByteBuffer) -> @Sendable (RequestBodyWriter) async throws -> Void {
        { writer in
            var rest = bytes
            while let part = rest.readSlice(length: min(rest.readableBytes, Self.largestQueuedBody)), part.readableBytes > 0 {
                try await writer.write(part)
            }
        }
    }

    /// What stays the same across the attempts of one request.
    private struct Attempt {
        let head: HTTPRequestHead
        let url: URL
        let key: PoolKey
        let metrics: MetricsRecorder
        let bodyProgress: (@Sendable (Int) -> Void)?
        let deadline: (at: NIODeadline, timeout: TimeAmount)?
        let cancellation: TransportCancellation
    }

    /// How many times a request an HTTP/2 server did not process (refused, or dropped by GOAWAY)
    /// is sent again: twice, never in a loop.
    static let unprocessedReplays = 2

    /// Sends the request; when a reused connection turns out to have been closed by the server
    /// before any response byte, an idempotent, replayable request is sent once more on a new
    /// connection; a replayable request an HTTP/2 server did not process, up to
    /// ``unprocessedReplays`` times more, whatever its method.
    private func run(
        _ attempt: Attempt,
        body: PreparedRequest.Body,
        replayable: Bool,
        produce: (@Sendable (RequestBodyWriter) async throws -> Void)?
    ) async throws -> TransportResponse {
        let prepared = PreparedRequest(
            head: attempt.head,
            url: attempt.url,
            body: body,
            metrics: attempt.metrics,
            bodyProgress: attempt.bodyProgress,
            readTimeout: self.configuration.readTimeout,
            deadline: attempt.deadline
        )
        let mayRetry = replayable && attempt.head.method.isIdempotent
        var isRetry = false
        var replays = 0
        while true {
            do {
                return try await self.send(prepared, attempt: attempt, isRetry: isRetry, produce: produce)
            } catch TransportError.connectionClosedBeforeResponse
                where mayRetry && !isRetry && attempt.metrics.snapshot.isReusedConnection
            {
                isRetry = true
            } catch TransportError.requestNotProcessed where replayable && replays < Self.unprocessedReplays {
                // The server said it did nothing with it: safe whatever the method.
                replays += 1
            }
            attempt.metrics.record { $0 = TransportMetrics(fetchStart: $0.fetchStart) }
        }
    }

    /// Sends `prepared` on a connection from the pool and waits for its response head, sending
    /// its streamed body with `produce`. Cancelling the calling Swift task, or the attempt's
    /// cancellation until the response body has ended, cancels the request.
    ///
    /// An answer other than 2xx that comes before the body is sent stops the sending (the server
    /// has decided): a source still producing is cancelled, then awaited; a source that waits for
    /// its own caller answers once it honours the cancellation, one that ignores it keeps the
    /// answer back. A 2xx answer that comes first is handed over at once while the body goes on
    /// (a full-duplex server, an echo, reads the body only as its answer is read); the response
    /// body ends with the upload, and fails if the body could not be sent to its end. Once the
    /// request has ended (failed, or whole on the wire), its source is cancelled as well: one
    /// that has not ended yet holds nothing back.
    private func send(
        _ prepared: PreparedRequest,
        attempt: Attempt,
        isRetry: Bool,
        produce: (@Sendable (RequestBodyWriter) async throws -> Void)?
    ) async throws -> TransportResponse {
        let pending = PendingRequest(prepared, cancellation: attempt.cancellation, handsOverItsConnection: produce != nil)
        let waiter = self.pool.lease(
            attempt.key,
            requiresNewConnection: isRetry,
            deadline: attempt.deadline,
            cancellation: attempt.cancellation,
            deliver: pending.deliver
        )
        return try await withTaskCancellationHandler {
            guard let produce, let upload = pending.upload else {
                return try await pending.head.value().get()
            }
            let (connection, id) = try await upload.started.value().get()
            // A task of its own, as the upload may outlive this call; the request's end stops it.
            let uploading = Task {
                await Self.upload(id, on: connection, produce: produce)
                upload.ended.deliver(())
            }
            Task {
                await upload.ended.value()
                uploading.cancel()
            }
            let response: TransportResponse
            do {
                response = try await pending.head.value().get()
            } catch {
                uploading.cancel()
                await uploading.value
                throw error
            }
            if !(200..<300).contains(response.status.code) {
                uploading.cancel()
                await uploading.value
            }
            return response
        } onCancel: {
            if pending.cancel() {
                self.pool.abandon(waiter, reason: .cancelled)
            }
        }
    }

    private static func upload(
        _ id: HTTPClientRequestHandler.RequestID,
        on connection: HTTPConnection,
        produce: @Sendable (RequestBodyWriter) async throws -> Void
    ) async {
        do {
            try await produce(connection.bodyWriter(of: id))
            // A source that simply ends when its task is cancelled (as `AsyncStream` does) must
            // not end the body on the wire: the server would take a cut body for a whole one.
            try Task.checkCancellation()
            try await connection.finishBody(of: id)
        } catch {
            connection.failBody(error, of: id)
        }
    }

    /// The request target of an origin-form request line: the percent-encoded path and query.
    static func requestTarget(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        var target = path.isEmpty ? "/" : path
        if let query = url.query(percentEncoded: true) {
            target += "?" + query
        }
        return target
    }

    /// The absolute form of `url`'s target, for a proxy: scheme, host, port unless the
    /// default, path and query; never user information or a fragment.
    static func absoluteTarget(of url: URL, key: PoolKey) -> String {
        "\(key.scheme.rawValue)://\(key.hostHeader)\(Self.requestTarget(of: url))"
    }
}
