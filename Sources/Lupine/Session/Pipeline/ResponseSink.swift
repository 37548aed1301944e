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

/// Where a task's final response body goes: the one thing that differs between the kinds of
/// task. The execution loop (``RequestExecutor/run(_:into:)``) asks the sink for each attempt's
/// request, hands it the final response, and lets it settle the outcome at the end.
protocol ResponseSink {
    /// Gets ready before the first attempt (a download opens its file).
    mutating nonisolated(nonsending) func prepare() async throws

    /// The request an attempt sends for `original` (a download adds its `Range`).
    func request(for original: Request) -> Request

    /// Whether the response can come from, and go to, a ``ResponseCache``.
    var usesCache: Bool { get }

    /// The body read whole, to offer to the cache once the sink is done; `nil` when the sink
    /// keeps none.
    var cacheableBody: [UInt8]? { get }

    /// Takes the final response's body.
    mutating nonisolated(nonsending) func receive(_ body: ResponseBody, head: ResponseHead, task: SessionTask, executor: RequestExecutor) async throws -> SinkVerdict

    /// Takes a stored response a cache answered with instead of the network.
    mutating nonisolated(nonsending) func receive(cached response: CachedResponse, task: SessionTask) async throws

    /// Takes a response the ``HTTPCache`` answered with; `false`, with nothing delivered, when the
    /// stored body cannot be read (the cache drops such an entry).
    mutating nonisolated(nonsending) func receive(entry: CacheEntry, task: SessionTask) async throws -> Bool

    /// Whether the body is handed on as it arrives, so the ``HTTPCache`` stores it through
    /// ``cacheWriter`` chunk by chunk rather than from ``cacheableBody``.
    var streamsToCache: Bool { get }

    /// Where the body being received is also written, for the ``HTTPCache``; set by the loop.
    var cacheWriter: CacheEntryWriter? { get set }

    /// Settles the outcome once the loop has ended, with `error` when it failed: puts the body
    /// (or the file) into `outcome` and sets its error, which the sink may turn into another
    /// (an interrupted download carries its resume data).
    mutating nonisolated(nonsending) func finish(_ outcome: inout ExecutionOutcome, error: LupineError?) async
}

extension ResponseSink {
    mutating nonisolated(nonsending) func prepare() async throws {}
    mutating nonisolated(nonsending) func receive(cached response: CachedResponse, task: SessionTask) async throws {}
    var usesCache: Bool { false }
    var cacheableBody: [UInt8]? { nil }
    var streamsToCache: Bool { false }
    var cacheWriter: CacheEntryWriter? {
        get { nil }
        set {}
    }

    /// Reads the stored body whole and takes it as any cached response.
    mutating nonisolated(nonsending) func receive(entry: CacheEntry, task: SessionTask) async throws -> Bool {
        guard let data = try? entry.readBody() else { return false }
        task.didReceive(entry.head)
        try await self.receive(cached: CachedResponse(head: entry.head, data: data), task: task)
        return true
    }
}

/// A data or upload task's sink: the body in memory, for the response serializer.
struct MemorySink: ResponseSink {
    private var data: [UInt8] = []

    func request(for original: Request) -> Request { original }

    var usesCache: Bool { true }

    var cacheableBody: [UInt8]? { self.data }

    mutating nonisolated(nonsending) func receive(_ body: ResponseBody, head: ResponseHead, task: SessionTask, executor: RequestExecutor) async throws -> SinkVerdict {
        let length = head.contentLength
        task.delegate.willReceiveBody(length: length)
        self.data = try await executor.readBody(body, expectedLength: length, of: task)
        return .done
    }

    mutating nonisolated(nonsending) func receive(cached response: CachedResponse, task: SessionTask) async throws {
        task.delegate.willReceiveBody(length: response.data.count)
        task.delegate.didReceiveBody(bytes: response.data.count)
        self.data = response.data
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
    var cacheWriter: CacheEntryWriter?

    /// The size of the chunks a stored body is handed on in.
    private static let storedChunkSize = 64 * 1024

    func request(for original: Request) -> Request { original }

    var usesCache: Bool { true }

    var streamsToCache: Bool { true }

    mutating nonisolated(nonsending) func receive(_ body: ResponseBody, head: ResponseHead, task: SessionTask, executor: RequestExecutor) async throws -> SinkVerdict {
        task.delegate.willReceiveBody(length: head.contentLength)
        try await Self.handing(head, to: self.receiveHead)
        let writer = self.cacheWriter
        try await executor.forEachChunk(of: body, for: task) { chunk in
            writer?.append(chunk)
            try await Self.handing(chunk, to: self.receiveChunk)
        }
        return .done
    }

    /// Hands a stored body on in chunks as it is read, so a large one never sits in memory.
    mutating nonisolated(nonsending) func receive(entry: CacheEntry, task: SessionTask) async throws -> Bool {
        task.didReceive(entry.head)
        task.delegate.willReceiveBody(length: entry.bodyLength)
        try await Self.handing(entry.head, to: self.receiveHead)
        for try await chunk in entry.bodyChunks(chunkSize: Self.storedChunkSize) {
            try task.checkCancellation()
            try await Self.handing(chunk, to: self.receiveChunk)
            task.delegate.didReceiveBody(bytes: chunk.readableBytes)
        }
        return true
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
