import Synchronization

/// A task's completion and its serialized value, handed to the Swift task that awaits them,
/// whichever of the two comes first; the value keeps its serializer's type all the way.
final class AwaitedCompletion<Value: Sendable>: Sendable {
    private enum State {
        case pending(CheckedContinuation<(TaskCompletion, Value?), Never>?)
        case delivered(TaskCompletion, Value?)
        /// Handed over: the box no longer keeps the body and value alive.
        case taken
    }

    private let state = Mutex(State.pending(nil))

    /// Hands over the completion; a second call does nothing.
    func deliver(_ completion: TaskCompletion, _ value: Value?) {
        let waiting: CheckedContinuation<(TaskCompletion, Value?), Never>? = self.state.withLock { state in
            guard case .pending(let continuation) = state else { return nil }
            state = continuation == nil ? .delivered(completion, value) : .taken
            return continuation
        }
        waiting?.resume(returning: (completion, value))
    }

    /// The completion ``deliver(_:_:)`` received, waiting for it if need be.
    func value() async -> (TaskCompletion, Value?) {
        // The usual case when the task ran inline: delivered already, no continuation needed.
        if let delivered = self.take() {
            return delivered
        }
        return await withCheckedContinuation { continuation in
            let ready: (TaskCompletion, Value?)? = self.state.withLock { state in
                if case .delivered(let completion, let value) = state {
                    state = .taken
                    return (completion, value)
                }
                state = .pending(continuation)
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
            }
        }
    }

    private func take() -> (TaskCompletion, Value?)? {
        self.state.withLock { state in
            guard case .delivered(let completion, let value) = state else { return nil }
            state = .taken
            return (completion, value)
        }
    }
}
