extension SessionManager {
    /// Creates a task with `make` (given the completion handler to install), runs it and
    /// returns its completion, its serialized value and the task. Cancelling the calling Swift
    /// task cancels the task.
    ///
    /// The task runs in the calling Swift task (no thread hand-off); `task.cancel()` reaches the
    /// transport through the task's cancellation handle, which every ``Transport`` honours.
    func runToCompletion<Kind: SessionTask, Value: Sendable>(
        _ make: (@escaping @Sendable (Kind, TaskCompletion, Value?) -> Void) -> Kind
    ) async -> (TaskCompletion, Value?, Kind) {
        let awaited = AwaitedCompletion<Value>()
        let task = make { _, completion, value in awaited.deliver(completion, value) }
        let (completion, value) = await withTaskCancellationHandler {
            await task.resumeInline()
            return await awaited.value()
        } onCancel: {
            task.cancel()
        }
        return (completion, value, task)
    }
}
