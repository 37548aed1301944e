import NIOCore

/// Where a response body read by a sink is also kept, for the cache: written to an
/// ``HTTPCache`` entry as it arrives, or collected whole for a ``CachedResponseHandler`` that
/// sees the body (and for a plain ``ResponseCache``, which takes whole responses).
///
/// Nothing is stored until the body has been read to its end (``finish()``); a body the sink
/// stops reading (it failed, or the task was cancelled) stores nothing.
///
/// Not Sendable: one per response, used by the task that reads it.
final class CacheTee {
    private enum Mode {
        case writing(CacheEntryWriter)
        case collecting(
            head: ResponseHead,
            chunks: [ByteBuffer],
            handler: (any CachedResponseHandler)?,
            task: SessionTask,
            keep: nonisolated(nonsending) (CachedResponse) async -> Void
        )
        case done
    }

    private var mode: Mode

    /// A tee that writes each chunk to `writer` and commits it at the end.
    init(writingTo writer: CacheEntryWriter) {
        self.mode = .writing(writer)
    }

    /// A tee that collects the body, offers the whole response to `handler` at the end, and
    /// hands what it keeps (all of it without a handler) to `keep`.
    init(
        collectingFor head: ResponseHead,
        handler: (any CachedResponseHandler)?,
        task: SessionTask,
        keep: nonisolated(nonsending) @escaping (CachedResponse) async -> Void
    ) {
        self.mode = .collecting(head: head, chunks: [], handler: handler, task: task, keep: keep)
    }

    /// Whether the tee wants the whole body: a reader that collects the body itself hands it
    /// over with ``finish(collected:)`` instead of each chunk, so it is held once.
    var collectsWhole: Bool {
        if case .collecting = self.mode { return true }
        return false
    }

    /// Keeps the next chunk of the body.
    func append(_ chunk: ByteBuffer) {
        switch self.mode {
        case .writing(let writer):
            writer.append(chunk)
        case .collecting(let head, var chunks, let handler, let task, let keep):
            self.mode = .done
            chunks.append(chunk)
            self.mode = .collecting(head: head, chunks: chunks, handler: handler, task: task, keep: keep)
        case .done:
            break
        }
    }

    /// The body has been read whole: stores it.
    nonisolated(nonsending) func finish() async {
        var data: [UInt8]?
        if case .collecting(_, let chunks, _, _, _) = self.mode {
            var joined: [UInt8] = []
            joined.reserveCapacity(chunks.reduce(0) { $0 + $1.readableBytes })
            for chunk in chunks {
                joined.append(contentsOf: chunk.readableBytesView)
            }
            data = joined
        }
        await self.finish(collected: data ?? [])
    }

    /// The body has been read whole, into `data` (by a reader that collected it itself, when
    /// ``collectsWhole``): stores it. A writing tee commits what it was given chunk by chunk.
    nonisolated(nonsending) func finish(collected data: [UInt8]) async {
        let mode = self.mode
        self.mode = .done
        switch mode {
        case .writing(let writer):
            writer.commit()
        case .collecting(let head, _, let handler, let task, let keep):
            if let kept = await CacheStage.verdict(of: handler, on: CachedResponse(head: head, data: data), task: task) {
                await keep(kept)
            }
        case .done:
            break
        }
    }

    /// Stores nothing.
    func abandon() {
        if case .writing(let writer) = self.mode {
            writer.abandon()
        }
        self.mode = .done
    }
}
