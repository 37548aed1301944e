extension SessionManager {
    /// Creates a task with `make` (given the completion handler to install), runs it and
    /// returns its completion and the task. Cancelling the calling Swift task cancels the task.
    ///
    /// The task runs in the calling Swift task when the transport honours the task's
    /// cancellation handle (``Transport/honorsCancellationHandle``), and on a Swift task of its
    /// own otherwise, where `task.cancel()` reaches it as Swift task cancellation.
    func runToCompletion<Kind: SessionTask>(
        _ make: (@escaping @Sendable (SessionTask, TaskCompletion) -> Void) -> Kind
    ) async -> (TaskCompletion, Kind) {
        let task = make(SessionTask.deliverToAwaiter)
        let completion = await withTaskCancellationHandler {
            if self.transport.honorsCancellationHandle {
                await task.resumeInline()
            } else {
                task.resume()
            }
            return await task.awaitCompletion()
        } onCancel: {
            task.cancel()
        }
        return (completion, task)
    }
}
