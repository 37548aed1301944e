import NIOConcurrencyHelpers

extension SessionManager {
    /// Creates a task with `make` (given the completion handler to install), runs it in the
    /// calling Swift task and returns its completion and the task. Cancelling the calling Swift
    /// task cancels the task.
    func runToCompletion<Kind: SessionTask>(
        _ make: (@escaping @Sendable (SessionTask, TaskCompletion) -> Void) -> Kind
    ) async -> (TaskCompletion, Kind) {
        let waiter = CompletionWaiter()
        let task = make { _, completion in waiter.complete(with: completion) }
        let completion = await withTaskCancellationHandler {
            await task.resumeInline()
            return await waiter.completion()
        } onCancel: {
            task.cancel()
        }
        return (completion, task)
    }
}

/// A one-shot hand-over of a task's completion to the Swift task awaiting it, whichever comes first.
private final class CompletionWaiter: Sendable {
    private enum State {
        case pending(CheckedContinuation<TaskCompletion, Never>?)
        case completed(TaskCompletion)
    }

    private let state = NIOLockedValueBox(State.pending(nil))

    func complete(with completion: TaskCompletion) {
        let waiting: CheckedContinuation<TaskCompletion, Never>? = self.state.withLockedValue { state in
            guard case .pending(let continuation) = state else { return nil }
            state = .completed(completion)
            return continuation
        }
        waiting?.resume(returning: completion)
    }

    func completion() async -> TaskCompletion {
        // The usual case when the task ran inline: no continuation needed.
        let ready: TaskCompletion? = self.state.withLockedValue { state in
            guard case .completed(let completion) = state else { return nil }
            return completion
        }
        if let ready {
            return ready
        }
        return await withCheckedContinuation { continuation in
            let ready: TaskCompletion? = self.state.withLockedValue { state in
                switch state {
                case .completed(let completion):
                    return completion
                case .pending:
                    state = .pending(continuation)
                    return nil
                }
            }
            if let ready {
                continuation.resume(returning: ready)
            }
        }
    }
}
