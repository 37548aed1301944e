import NIOConcurrencyHelpers

/// The tasks a session runs for no caller (the background revalidations of
/// `stale-while-revalidate`): never handed out nor reported, and cancelled when the session is
/// invalidated, so none outlives it.
final class BackgroundTasks: Sendable {
    private let state = NIOLockedValueBox((closed: false, tasks: [ObjectIdentifier: SessionTask]()))

    /// Registers `task` until ``release(_:)``; `false` once the session is invalidated (the task
    /// must not run).
    func admit(_ task: SessionTask) -> Bool {
        self.state.withLockedValue { state in
            guard !state.closed else { return false }
            state.tasks[ObjectIdentifier(task)] = task
            return true
        }
    }

    /// Forgets `task`, which has ended.
    func release(_ task: SessionTask) {
        _ = self.state.withLockedValue { $0.tasks.removeValue(forKey: ObjectIdentifier(task)) }
    }

    /// Cancels every registered task and admits no more.
    func cancelAll() {
        let running = self.state.withLockedValue { state in
            state.closed = true
            return Array(state.tasks.values)
        }
        for task in running {
            task.cancel()
        }
    }
}
