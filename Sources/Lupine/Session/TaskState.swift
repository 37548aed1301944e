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
}
