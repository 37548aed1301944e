extension SessionManager {
    /// Creates a task with `make` (given the completion handler to install), runs it and
    /// returns its completion and the task. Cancelling the calling Swift task cancels the task.
    ///
    /// The task runs in the calling Swift task (no thread hand-off); `task.cancel()` reaches the
    /// transport through the task's cancellation handle, which every ``Transport`` honours.
    func runToCompletion<Kind: SessionTask>(
        _ make: (@escaping @Sendable (SessionTask, TaskCompletion) -> Void) -> Kind
    ) async -> (TaskCompletion, Kind) {
        let task = make(SessionTask.deliverToAwaiter)
        let completion = await withTaskCancellationHandler {
            await task.resumeInline()
            return await task.awaitCompletion()
        } onCancel: {
            task.cancel()
        }
        return (completion, task)
    }
}
