/// Where a task is in its life, as `URLSessionTask.State`.
public enum TaskState: Sendable, Equatable {
    /// Created, or paused by `suspend()`.
    case suspended
    /// Running.
    case running
    /// `cancel()` was called; completion follows.
    case canceling
    /// Finished, successfully or not. Nothing changes it any more.
    case completed

    /// Whether a task may go from this state to `next`, the one place that says so (as
    /// Alamofire's `Request.State.canTransitionTo`): `resume()` takes a suspended task to running,
    /// `suspend()` a running one back, `cancel()` either to canceling, and any task not yet
    /// completed may complete (a failure can end a suspended task). A state never moves to itself.
    public func canTransition(to next: TaskState) -> Bool {
        switch (self, next) {
        case (.suspended, .running), (.running, .suspended):
            return true
        case (.suspended, .canceling), (.running, .canceling):
            return true
        case (.suspended, .completed), (.running, .completed), (.canceling, .completed):
            return true
        default:
            return false
        }
    }
}
