extension SessionManager {
    /// Creates a task with `make` (given the completion handler to install), runs it and
    /// returns its completion and the task. Cancelling the calling Swift task cancels the task.
    ///
    /// The task runs in the calling Swift task (no thread hand-off); `task.cancel()` reaches the
    /// transport through the task's cancellation handle, which every `Transport` honours.
    nonisolated(nonsending) func runToCompletion<Kind: SessionTask>(
        _ make: (@escaping @Sendable (Kind, TaskCompletion) -> Void) -> Kind
    ) async -> (TaskCompletion, Kind) {
        let awaited = AwaitedValue<TaskCompletion>()
        let task = make { _, completion in awaited.deliver(completion) }
        let completion = await withTaskCancellationHandler {
            await task.resumeInline()
            return await awaited.value()
        } onCancel: {
            task.cancel()
        }
        return (completion, task)
    }

    /// Runs `request` as a data task in the calling Swift task, its body made into a value by
    /// `serialization`; returns its completion and the request it last sent.
    @usableFromInline
    nonisolated(nonsending) func runDataTask(_ request: Request, serialization: TaskSerialization) async -> (TaskCompletion, Request) {
        let (completion, task) = await self.runToCompletion { completionHandler in
            self.makeTask(
                DataTask.self,
                with: request,
                serialization: serialization,
                hooks: SessionHooks(),
                uploadProgress: nil,
                downloadProgress: nil,
                completesOnQueue: false,
                completionHandler: completionHandler
            )
        }
        return (completion, task.currentRequest)
    }
}
