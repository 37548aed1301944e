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
        let mode = self.mode
        self.mode = .done
        switch mode {
        case .writing(let writer):
            writer.commit()
        case .collecting(let head, let chunks, let handler, let task, let keep):
            var data: [UInt8] = []
            data.reserveCapacity(chunks.reduce(0) { $0 + $1.readableBytes })
            for chunk in chunks {
                data.append(contentsOf: chunk.readableBytesView)
            }
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
