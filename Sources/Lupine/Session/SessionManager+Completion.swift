import Foundation

/// How a task ends: its completion built and delivered (hooks, the complete notification,
/// event monitors, then the handler on its queue), and the transport shut down once an
/// invalidated manager has no task left.
extension SessionManager {

    func complete<Kind: SessionTask>(
        _ task: Kind,
        outcome: ExecutionOutcome,
        serialization: TaskSerialization,
        hooks: SessionHooks,
        onQueue: Bool,
        handler: @escaping @Sendable (Kind, TaskCompletion) -> Void
    ) {
        let serialized = outcome.error == nil ? serialization.serialize(outcome.head, outcome.data, outcome.request) : nil
        let error = outcome.error ?? serialized?.error
        let completion = TaskCompletion(
            response: outcome.head,
            responseData: outcome.data,
            serializedObject: serialized?.value,
            error: error,
            metrics: outcome.metrics,
            earlierMetrics: outcome.earlierMetrics,
            retryCount: outcome.retryCount,
            redirectChain: outcome.redirectChain,
            fileURL: outcome.fileURL,
            cacheStatus: outcome.cacheStatus
        )
        guard task.complete(metrics: outcome.metrics, error: error) else { return }
        task.didComplete()
        task.delegate.finish(succeeded: outcome.error == nil)
        let (queue, group, monitors) = self.settings.withLockedValue { settings in
            settings.tasks[task.taskIdentifier] = nil
            return (settings.completionQueue ?? self.defaultCompletionQueue, settings.completionGroup, settings.eventMonitors)
        }
        self.shutDownTransportIfDone()
        hooks.didComplete?(task, error)
        NotificationCenter.default.post(
            name: .lupineTaskDidComplete,
            object: task,
            userInfo: CompletionUserInfo.of(completion, serializer: serialization.serializer)
        )
        for monitor in monitors {
            monitor.taskDidComplete(task, with: completion)
        }
        if !onQueue {
            handler(task, completion)
        } else if let group {
            queue.async(group: group) { handler(task, completion) }
        } else {
            queue.async { handler(task, completion) }
        }
    }

    /// Shuts down the transport the manager owns, once the manager is invalidated and has no
    /// task left; only the first call that finds it so does it.
    func shutDownTransportIfDone() {
        guard self.ownsTransport else { return }
        let shutDownNow = self.settings.withLockedValue { settings in
            guard settings.isInvalidated, settings.tasks.isEmpty, !settings.isTransportShutDown else { return false }
            settings.isTransportShutDown = true
            return true
        }
        guard shutDownNow else { return }
        let transport = self.transport
        Task { await transport.shutdown() }
    }

    func tell(_ event: TaskEvent, about task: SessionTask) {
        let name: Notification.Name = event == .resumed ? .lupineTaskDidResume : .lupineTaskDidSuspend
        NotificationCenter.default.post(name: name, object: task)
        for monitor in self.eventMonitors {
            if event == .resumed {
                monitor.taskDidResume(task)
            } else {
                monitor.taskDidSuspend(task)
            }
        }
    }
}
