import NIOCore

/// A final response's body as a ``ResponseSink`` reads it: from the network, or stored by a
/// cache; a sink cannot tell them apart.
///
/// Reading it is where the task's own rules apply to every chunk: it waits while the task is
/// suspended (so the transport stops reading), stops when the task is cancelled, hands each chunk
/// to the cache's ``CacheTee`` as it passes, and reports a chunk (progress, the session's
/// `didReceiveData` hook) once the sink has taken it, when the next one is asked for.
///
/// Not Sendable: one per response, read by the task that received it.
struct ResponseStream {
    /// Where the chunks come from.
    enum Source {
        /// A response arriving from the network.
        case network(ResponseBody)
        /// A stored body, read as the chunks are asked for.
        case stored(AsyncThrowingStream<ByteBuffer, any Error>)
        /// A stored body already in memory, or none.
        case bytes([UInt8])
    }

    private enum Chunks {
        case network(ResponseBody.AsyncIterator)
        case stored(AsyncThrowingStream<ByteBuffer, any Error>.AsyncIterator)
        case bytes([UInt8]?)
    }

    private var chunks: Chunks
    private let task: SessionTask
    private let didReceiveData: (@Sendable (SessionTask, ByteBuffer) -> Void)?
    private let tee: CacheTee?
    /// The chunk the sink was handed last, reported when it asks for the next.
    private var handed: ByteBuffer?
    /// Whether ``collect(expectedLength:)`` hands the tee the whole body at the end rather than
    /// each chunk (so it is held once).
    private var teeTakesWhole = false

    init(_ source: Source, task: SessionTask, hooks: SessionHooks, tee: CacheTee? = nil) {
        switch source {
        case .network(let body): self.chunks = .network(body.makeAsyncIterator())
        case .stored(let stream): self.chunks = .stored(stream.makeAsyncIterator())
        case .bytes(let bytes): self.chunks = .bytes(bytes.isEmpty ? nil : bytes)
        }
        self.task = task
        self.didReceiveData = hooks.didReceiveData
        self.tee = tee
    }

    /// The next chunk, or `nil` once the whole body has been read.
    mutating nonisolated(nonsending) func next() async throws -> ByteBuffer? {
        if let handed = self.handed {
            self.handed = nil
            self.task.delegate.didReceiveBody(bytes: handed.readableBytes)
            self.didReceiveData?(self.task, handed)
        }
        await self.task.gate.pass()
        try self.task.checkCancellation()
        guard let chunk = try await self.nextChunk() else {
            if !self.teeTakesWhole {
                await self.tee?.finish()
            }
            return nil
        }
        if !self.teeTakesWhole {
            self.tee?.append(chunk)
        }
        self.handed = chunk
        return chunk
    }

    /// The whole body, in one allocation when its announced `expectedLength` holds (capped: the
    /// header is the server's word).
    mutating nonisolated(nonsending) func collect(expectedLength: Int?) async throws -> [UInt8] {
        if case .bytes(let stored) = self.chunks, self.handed == nil, self.tee == nil {
            // A stored body already in memory is handed over as it is, not copied twice.
            await self.task.gate.pass()
            try self.task.checkCancellation()
            self.chunks = .bytes(nil)
            guard let stored else { return [] }
            self.task.delegate.didReceiveBody(bytes: stored.count)
            self.didReceiveData?(self.task, ByteBuffer(bytes: stored))
            return stored
        }
        var data: [UInt8] = []
        data.reserveCapacity(min(max(expectedLength ?? 0, 0), 16 * 1024 * 1024))
        self.teeTakesWhole = self.tee?.collectsWhole ?? false
        while let chunk = try await self.next() {
            data.append(contentsOf: chunk.readableBytesView)
        }
        if self.teeTakesWhole {
            await self.tee?.finish(collected: data)
        }
        return data
    }

    /// Reads the rest of a body nobody keeps, as ``RequestExecutor/drain(_:)`` does; the cache
    /// keeps none of it.
    mutating nonisolated(nonsending) func discard() async {
        self.tee?.abandon()
        switch self.chunks {
        case .network(var iterator):
            await RequestExecutor.drain(&iterator)
        case .stored, .bytes:
            break
        }
    }

    private mutating nonisolated(nonsending) func nextChunk() async throws -> ByteBuffer? {
        switch self.chunks {
        case .network(var iterator):
            let chunk = try await iterator.next(isolation: #isolation)
            self.chunks = .network(iterator)
            return chunk
        case .stored(var iterator):
            do {
                let chunk = try await iterator.next(isolation: #isolation)
                self.chunks = .stored(iterator)
                return chunk
            } catch is CacheEntryDamaged {
                // The cache's failure, not the network's: the entry is gone, a new request fetches it.
                throw LupineError.cachedResponseDamaged(self.task.currentRequest.url)
            }
        case .bytes(let bytes):
            self.chunks = .bytes(nil)
            return bytes.map { ByteBuffer(bytes: $0) }
        }
    }
}
