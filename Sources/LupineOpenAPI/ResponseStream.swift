import NIOConcurrencyHelpers
import Lupine
import NIOCore

/// The meeting point of a Lupine stream task and the generated client reading its response: the
/// task hands over the head, then each body chunk, and waits until the reader has taken a chunk
/// before it reads the next one from the socket. So at most one chunk is held here, and a reader
/// that stops reading stops the socket.
///
/// Either side can end it: the task by finishing (or failing), the reader by cancelling, which
/// cancels the task.
final class ResponseStream: Sendable {
    private let state = NIOLockedValueBox(State())

    private struct State {
        /// The task, once started; cancelled by ``cancel()``.
        var task: Task<Void, Never>?
        /// The head once it arrived, or the error that came instead.
        var head: Result<ResponseHead, LupineError>?
        /// Who waits for the head.
        var headWaiter: CheckedContinuation<ResponseHead, any Error>?
        /// A chunk the reader has not taken yet, and the task waiting for it to be taken.
        var pending: (chunk: ByteBuffer, producer: CheckedContinuation<Void, any Error>)?
        /// The reader waiting for a chunk.
        var reader: CheckedContinuation<ByteBuffer?, any Error>?
        /// How the body ended: `nil` while it may go on, `.success` at its end, a failure when
        /// the task failed or the reader cancelled.
        var end: Result<Void, LupineError>?
    }

    /// Runs `exchange`, the Lupine task that feeds this stream, in a task of its own: it goes on
    /// after the head is returned, for as long as the body is read.
    func run(_ exchange: @escaping @Sendable () async throws(LupineError) -> Response<Void>) {
        let task = Task {
            do throws(LupineError) {
                self.finish(.success(try await exchange()))
            } catch {
                self.finish(.failure(error))
            }
        }
        let cancelled = self.state.withLockedValue { state in
            state.task = task
            return state.end != nil
        }
        if cancelled {
            task.cancel()
        }
    }

    /// The response head, once it arrives.
    ///
    /// - Throws: the `LupineError` the task failed with first, or `LupineError.cancelled`.
    func head() async throws -> ResponseHead {
        try await withCheckedThrowingContinuation { continuation in
            let arrived = self.state.withLockedValue { state -> Result<ResponseHead, LupineError>? in
                if state.head == nil {
                    state.headWaiter = continuation
                }
                return state.head
            }
            if let arrived {
                continuation.resume(with: arrived)
            }
        }
    }

    /// Takes the head from the task (its `receiveHead`); only the first counts.
    func receive(_ head: ResponseHead) {
        let waiter = self.state.withLockedValue { state -> CheckedContinuation<ResponseHead, any Error>? in
            guard state.head == nil else { return nil }
            state.head = .success(head)
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: head)
    }

    /// Hands `chunk` to the reader (the task's `receiveChunk`), returning once it is taken.
    ///
    /// - Throws: `LupineError.cancelled` when the reader has cancelled or the task is cancelled.
    func offer(_ chunk: ByteBuffer) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (producer: CheckedContinuation<Void, any Error>) in
                let action = self.state.withLockedValue { state -> OfferAction in
                    if state.end != nil {
                        return .refuse
                    }
                    if let reader = state.reader {
                        state.reader = nil
                        return .deliver(reader)
                    }
                    state.pending = (chunk, producer)
                    return .wait
                }
                switch action {
                case .refuse:
                    producer.resume(throwing: LupineError.cancelled)
                case .deliver(let reader):
                    reader.resume(returning: chunk)
                    producer.resume()
                case .wait:
                    break
                }
            }
        } onCancel: {
            self.cancel()
        }
    }

    private enum OfferAction {
        case refuse
        case deliver(CheckedContinuation<ByteBuffer?, any Error>)
        case wait
    }

    /// The next body chunk, or `nil` at the body's end; cancelling the calling task cancels the
    /// Lupine task.
    ///
    /// - Throws: the `LupineError` the task failed with, or `LupineError.cancelled`.
    func next() async throws -> ByteBuffer? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (reader: CheckedContinuation<ByteBuffer?, any Error>) in
                let action = self.state.withLockedValue { state -> NextAction in
                    if let pending = state.pending {
                        state.pending = nil
                        return .take(pending.chunk, pending.producer)
                    }
                    if let end = state.end {
                        return .end(end)
                    }
                    state.reader = reader
                    return .wait
                }
                switch action {
                case .take(let chunk, let producer):
                    producer.resume()
                    reader.resume(returning: chunk)
                case .end(let end):
                    reader.resume(with: end.map { nil })
                case .wait:
                    break
                }
            }
        } onCancel: {
            self.cancel()
        }
    }

    private enum NextAction {
        case take(ByteBuffer, CheckedContinuation<Void, any Error>)
        case end(Result<Void, LupineError>)
        case wait
    }

    /// Ends the stream as cancelled, if it has not ended, and cancels the task: whoever waits
    /// (for the head, a chunk, or the reader) gets `LupineError.cancelled`.
    func cancel() {
        self.end(.failure(.cancelled), head: .failure(.cancelled))?.cancel()
    }

    /// Ends the stream with how the task ended.
    private func finish(_ outcome: Result<Response<Void>, LupineError>) {
        switch outcome {
        case .success(let response):
            // A task that succeeds has a head; were it ever without one, the reader learns
            // that no response came rather than waiting for ever.
            let head: Result<ResponseHead, LupineError> = response.head.map { .success($0) } ?? .failure(.transport(.connectionClosedBeforeResponse))
            self.end(.success(()), head: head)
        case .failure(let error):
            self.end(.failure(error), head: .failure(error))
        }
    }

    /// Records `end`, and `head` when no head came before; only the first end counts. Resumes
    /// every waiter with them, and returns the task when this call ended the stream.
    @discardableResult
    private func end(_ end: Result<Void, LupineError>, head: Result<ResponseHead, LupineError>) -> Task<Void, Never>? {
        let ended = self.state.withLockedValue { state -> Ended? in
            guard state.end == nil else { return nil }
            state.end = end
            let head = state.head ?? head
            state.head = head
            defer {
                state.headWaiter = nil
                state.pending = nil
                state.reader = nil
            }
            return Ended(task: state.task, head: head, headWaiter: state.headWaiter, producer: state.pending?.producer, reader: state.reader)
        }
        guard let ended else { return nil }
        ended.headWaiter?.resume(with: ended.head)
        // Only a reader's cancellation leaves the task waiting for a chunk to be taken.
        ended.producer?.resume(throwing: LupineError.cancelled)
        ended.reader?.resume(with: end.map { nil })
        return ended.task
    }

    /// What ending the stream leaves to resume.
    private struct Ended {
        let task: Task<Void, Never>?
        let head: Result<ResponseHead, LupineError>
        let headWaiter: CheckedContinuation<ResponseHead, any Error>?
        let producer: CheckedContinuation<Void, any Error>?
        let reader: CheckedContinuation<ByteBuffer?, any Error>?
    }
}
