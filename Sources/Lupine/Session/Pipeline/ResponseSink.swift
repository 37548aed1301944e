import Foundation
import NIOCore

/// What a sink says once it has taken a response's body.
enum SinkVerdict {
    /// The body is where it belongs: the task's loop ends.
    case done
    /// The response cannot be used as it is (a resumed download the server will not continue):
    /// the loop sends the request again, as the sink prepares it, without counting a retry.
    case startOver
}

/// What a sink does with a cache.
enum CacheAccess {
    /// Nothing: its responses neither come from nor go to a cache (a download).
    case none
    /// It keeps whole bodies: a stored body is read whole for it, and the
    /// ``CachedResponseHandler`` sees the whole body it may store.
    case wholeBodies
    /// It hands bodies on as they arrive: a stored body comes in chunks, a received one is
    /// stored as it arrives, and the ``CachedResponseHandler`` sees only the head. A plain
    /// ``ResponseCache``, which takes whole responses, is not used.
    case streamed
}

/// Where a task's final response body goes: the one thing that differs between the kinds of
/// task. The execution loop (``RequestExecutor/run(_:into:)``) asks the sink for each attempt's
/// request, hands it the final response (from the network or from the cache: its body is a
/// ``ResponseStream`` either way), and lets it settle the outcome at the end.
protocol ResponseSink {
    /// What the sink does with a cache.
    var cacheAccess: CacheAccess { get }

    /// Gets ready before the first attempt (a download opens its file).
    mutating nonisolated(nonsending) func prepare() async throws

    /// The request an attempt sends for `original` (a download adds its `Range`).
    func request(for original: Request) -> Request

    /// Takes the final response's head and body.
    mutating nonisolated(nonsending) func receive(_ body: inout ResponseStream, head: ResponseHead, task: SessionTask) async throws -> SinkVerdict

    /// Settles the outcome once the loop has ended, with `error` when it failed: puts the body
    /// (or the file) into `outcome` and sets its error, which the sink may turn into another
    /// (an interrupted download carries its resume data).
    mutating nonisolated(nonsending) func finish(_ outcome: inout ExecutionOutcome, error: LupineError?) async
}

/// A data or upload task's sink: the body in memory, for the response serializer.
struct MemorySink: ResponseSink {
    private var data: [UInt8] = []

    var cacheAccess: CacheAccess { .wholeBodies }

    mutating nonisolated(nonsending) func prepare() async throws {}

    func request(for original: Request) -> Request { original }

    mutating nonisolated(nonsending) func receive(_ body: inout ResponseStream, head: ResponseHead, task: SessionTask) async throws -> SinkVerdict {
        let length = head.contentLength
        task.delegate.willReceiveBody(length: length)
        self.data = try await body.collect(expectedLength: length)
        return .done
    }

    mutating nonisolated(nonsending) func finish(_ outcome: inout ExecutionOutcome, error: LupineError?) async {
        outcome.data = self.data
        outcome.error = error
    }
}

/// The sink of ``SessionManager/stream(_:receiveHead:receiveChunk:)``: the head and each chunk
/// handed to the caller's handlers as they come, nothing kept.
struct HandlerSink: ResponseSink {
    let receiveHead: @Sendable (ResponseHead) async throws -> Void
    let receiveChunk: @Sendable (ByteBuffer) async throws -> Void

    var cacheAccess: CacheAccess { .streamed }

    mutating nonisolated(nonsending) func prepare() async throws {}

    func request(for original: Request) -> Request { original }

    mutating nonisolated(nonsending) func receive(_ body: inout ResponseStream, head: ResponseHead, task: SessionTask) async throws -> SinkVerdict {
        task.delegate.willReceiveBody(length: head.contentLength)
        try await Self.handing(head, to: self.receiveHead)
        while let chunk = try await body.next() {
            try await Self.handing(chunk, to: self.receiveChunk)
        }
        return .done
    }

    mutating nonisolated(nonsending) func finish(_ outcome: inout ExecutionOutcome, error: LupineError?) async {
        outcome.error = error
    }

    /// Calls a caller's `handler` with `value`, reporting what it throws as a ``LupineError``.
    private static func handing<Value>(_ value: Value, to handler: @Sendable (Value) async throws -> Void) async throws(LupineError) {
        do {
            try await handler(value)
        } catch {
            throw LupineError(translating: error, from: .responseHandler)
        }
    }
}

extension ResponseHead {
    /// The `Content-Length` the server announced, when it is a number.
    var contentLength: Int? {
        self.headers.first(name: "Content-Length").flatMap(Int.init)
    }
}
