import Foundation

/// Everything known when a task completes, as the completion notification carries it.
///
/// An immutable object rather than a struct: it is handed from the task to its notification,
/// monitors and completion handler, and a struct of this size costs dozens of value-witness
/// calls per copy where an object costs one retain.
public final class TaskCompletion: Sendable {
    /// The response head, when one arrived.
    public let response: ResponseHead?
    /// The body bytes.
    public let responseData: [UInt8]
    /// The serialized value, when serialization produced one (also alongside a status error).
    public let serializedObject: (any Sendable)?
    /// The error, when the task failed.
    public let error: LupineError?
    /// The transport metrics of the final request.
    public let metrics: TransportMetrics?
    /// The URLs redirected through, in order.
    public let redirectChain: [URL]
    /// Where a download task's file is, when it completed successfully.
    public let fileURL: URL?

    init(
        response: ResponseHead?,
        responseData: [UInt8],
        serializedObject: (any Sendable)?,
        error: LupineError?,
        metrics: TransportMetrics?,
        redirectChain: [URL],
        fileURL: URL?
    ) {
        self.response = response
        self.responseData = responseData
        self.serializedObject = serializedObject
        self.error = error
        self.metrics = metrics
        self.redirectChain = redirectChain
        self.fileURL = fileURL
    }
}

/// Receives a session's task events, in the order they happen: the Swift form of the
/// notifications. Every method has an empty default, so a monitor implements only what it needs.
public protocol EventMonitor: Sendable {
    /// A task started or continued.
    func taskDidResume(_ task: SessionTask)
    /// A task was suspended.
    func taskDidSuspend(_ task: SessionTask)
    /// A task completed (once per task).
    func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion)
    /// The session was invalidated.
    func sessionDidInvalidate(_ manager: SessionManager)
}

extension EventMonitor {
    public func taskDidResume(_ task: SessionTask) {}
    public func taskDidSuspend(_ task: SessionTask) {}
    public func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion) {}
    public func sessionDidInvalidate(_ manager: SessionManager) {}
}
