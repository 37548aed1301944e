import Synchronization

/// A task's completion, handed to the Swift task that awaits it, whichever of the two comes first.
final class AwaitedCompletion: Sendable {
    private enum State {
        case pending(CheckedContinuation<TaskCompletion, Never>?)
        case delivered(TaskCompletion)
        /// Handed over: the box no longer keeps the body alive.
        case taken
    }

    private let state = Mutex(State.pending(nil))

    /// Hands over the completion; a second call does nothing.
    func deliver(_ completion: TaskCompletion) {
        let waiting: CheckedContinuation<TaskCompletion, Never>? = self.state.withLock { state in
            guard case .pending(let continuation) = state else { return nil }
            state = continuation == nil ? .delivered(completion) : .taken
            return continuation
        }
        waiting?.resume(returning: completion)
    }

    /// The completion ``deliver(_:)`` received, waiting for it if need be.
    nonisolated(nonsending) func value() async -> TaskCompletion {
        // The usual case when the task ran inline: delivered already, no continuation needed.
        if let delivered = self.take() {
            return delivered
        }
        return await withCheckedContinuation { continuation in
            let ready: TaskCompletion? = self.state.withLock { state in
                if case .delivered(let completion) = state {
                    state = .taken
                    return completion
                }
                state = .pending(continuation)
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
            }
        }
    }

    private func take() -> TaskCompletion? {
        self.state.withLock { state in
            guard case .delivered(let completion) = state else { return nil }
            state = .taken
            return completion
        }
    }
}
