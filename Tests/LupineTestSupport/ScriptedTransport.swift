import Foundation
import Lupine
import NIOConcurrencyHelpers
import NIOCore

/// A ``Transport`` that answers from a script, with no socket: each request gets the next step
/// (a response with its body, a wait, or an error), and every request is recorded as it was
/// handed over. For fast tests of the session's loop (retries, redirects, challenges, the cache,
/// cookies) beside the loopback tests that exercise the real transport.
public final class ScriptedTransport: Transport, Sendable {
    /// What the transport does with one request.
    public enum Step: Sendable {
        /// Answers with `status`, `headers` and a body delivered in `chunks`.
        case respond(HTTPResponseStatus, headers: HTTPHeaders = [:], chunks: [String] = [])
        /// Answers with `status`, `headers` and a body that never ends: after `chunks`, it waits
        /// until the request is cancelled or its reader stops.
        case respondAndStall(HTTPResponseStatus, headers: HTTPHeaders = [:], chunks: [String] = [])
        /// Fails with `error` before any response.
        case fail(any Error)
        /// Waits until the request is cancelled, then fails with ``TransportError/cancelled``.
        case stall
    }

    /// A request as the session handed it over.
    public struct Sent: Sendable {
        public let method: HTTPMethod
        public let url: URL
        public let headers: HTTPHeaders
        public let hasBody: Bool
        public let timeout: TimeAmount?
    }

    private let script: @Sendable (_ request: TransportRequest, _ index: Int) -> Step
    private let recorded = NIOLockedValueBox<[Sent]>([])

    /// A transport that asks `script` for the step of each request, numbered from 0.
    public init(_ script: @escaping @Sendable (_ request: TransportRequest, _ index: Int) -> Step) {
        self.script = script
    }

    /// A transport that takes `steps` in order; a request past the last fails with
    /// ``TransportError/invalidResponse(reason:)`` saying the script ran out.
    public convenience init(_ steps: [Step]) {
        self.init { _, index in
            index < steps.count ? steps[index] : .fail(TransportError.invalidResponse(reason: "the script has no step \(index)"))
        }
    }

    /// The requests handed over so far, in order.
    public var sent: [Sent] { self.recorded.withLockedValue { $0 } }

    public func execute(_ request: TransportRequest) async throws -> TransportResponse {
        if request.cancellation.isCancelled || Task.isCancelled {
            throw TransportError.cancelled
        }
        let index = self.recorded.withLockedValue { recorded in
            recorded.append(Sent(method: request.method, url: request.url, headers: request.headers, hasBody: request.body != nil, timeout: request.timeout))
            return recorded.count - 1
        }
        switch self.script(request, index) {
        case .respond(let status, let headers, let chunks):
            return TransportResponse(status: status, headers: headers, url: request.url, body: ResponseBody(chunks.map { ByteBuffer(string: $0) }))
        case .respondAndStall(let status, let headers, let chunks):
            let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
            for chunk in chunks {
                continuation.yield(ByteBuffer(string: chunk))
            }
            request.cancellation.whenCancelled { continuation.finish(throwing: TransportError.cancelled) }
            return TransportResponse(status: status, headers: headers, url: request.url, body: ResponseBody(stream))
        case .fail(let error):
            throw error
        case .stall:
            let (stream, continuation) = AsyncStream<Void>.makeStream()
            request.cancellation.whenCancelled { continuation.finish() }
            await withTaskCancellationHandler {
                for await _ in stream {}
            } onCancel: {
                continuation.finish()
            }
            throw TransportError.cancelled
        }
    }

    public func shutdown() async {}
}
