import NIOConcurrencyHelpers
import Foundation

/// A request in a session: it starts suspended, runs on ``resume()``, can be paused with
/// ``suspend()`` (the transport then stops reading from the socket) and ended with ``cancel()``.
/// Its completion handler runs exactly once, whatever the order of calls.
///
/// `@unchecked Sendable`: every mutable property lives in `storage`, guarded by its lock; the rest
/// is immutable.
public class SessionTask: @unchecked Sendable, CustomStringConvertible {
    private struct MutableState {
        var phase: TaskState = .suspended
        var started = false
        var runner: Task<Void, Never>?
        /// What running the task does, until it is started (then it is let go of, which ends the
        /// cycle through the task it captures).
        var body: (nonisolated(nonsending) @Sendable () async -> Void)?
        var taskDescription: String?
        var currentRequest: Request
        var response: ResponseHead?
        var metrics: TransportMetrics?
        var error: LupineError?
    }

    /// An identifier unique within the session manager.
    public let taskIdentifier: Int
    /// The request as the task was created with.
    public let originalRequest: Request
    let delegate: TaskDelegate
    /// Where the response body goes, which is all that differs between the kinds of task.
    let bodyDestination: BodyDestination
    let gate = SuspensionGate()
    /// Cancels the task's transport requests and the session's waits between them when
    /// ``cancel()`` is called, also when the task runs in its caller's Swift task, which
    /// `cancel()` cannot cancel.
    let cancellation = TaskCancellation()
    private let storage: NIOLockedValueBox<MutableState>
    private let tell: @Sendable (SessionTask, TaskEvent) -> Void

    required init(
        identifier: Int,
        request: Request,
        delegate: TaskDelegate,
        bodyDestination: BodyDestination,
        tell: @escaping @Sendable (SessionTask, TaskEvent) -> Void
    ) {
        self.taskIdentifier = identifier
        self.originalRequest = request
        self.delegate = delegate
        self.bodyDestination = bodyDestination
        self.tell = tell
        self.storage = NIOLockedValueBox(MutableState(currentRequest: request))
    }

    /// Sets what running the task does; the session calls it once, before handing the task out.
    func install(_ body: nonisolated(nonsending) @escaping @Sendable () async -> Void) {
        self.storage.withLockedValue { $0.body = body }
    }

    /// What running the task does, taken out so it runs once.
    private func takeBody() -> (nonisolated(nonsending) @Sendable () async -> Void)? {
        self.storage.withLockedValue { state in
            defer { state.body = nil }
            return state.body
        }
    }

    /// Where the task is in its life.
    public var state: TaskState { self.storage.withLockedValue { $0.phase } }
    /// A description the app may set, as `URLSessionTask.taskDescription`.
    public var taskDescription: String? {
        get { self.storage.withLockedValue { $0.taskDescription } }
        set { self.storage.withLockedValue { $0.taskDescription = newValue } }
    }
    /// The request being sent now (it changes when a redirect is followed).
    public var currentRequest: Request { self.storage.withLockedValue { $0.currentRequest } }
    /// The response head, once it arrived.
    public var response: ResponseHead? { self.storage.withLockedValue { $0.response } }
    /// The transport metrics, once the task completed.
    public var metrics: TransportMetrics? { self.storage.withLockedValue { $0.metrics } }
    /// The error the task failed with, once it completed.
    public var error: LupineError? { self.storage.withLockedValue { $0.error } }
    /// Body bytes received so far.
    public var countOfBytesReceived: Int64 { self.delegate.downloadReading.completedUnitCount }
    /// Body bytes expected, or -1 when unknown.
    public var countOfBytesExpectedToReceive: Int64 { self.delegate.downloadReading.totalUnitCount }
    /// Body bytes sent so far.
    public var countOfBytesSent: Int64 { self.delegate.uploadReading.completedUnitCount }
    /// Body bytes to send, or -1 when unknown.
    public var countOfBytesExpectedToSend: Int64 { self.delegate.uploadReading.totalUnitCount }

    /// Readings of the download progress, from now until the task completes.
    public func downloadProgressUpdates() -> AsyncStream<TaskProgress> {
        self.delegate.progressUpdates(upload: false)
    }

    /// Readings of the upload progress, from now until the task completes.
    public func uploadProgressUpdates() -> AsyncStream<TaskProgress> {
        self.delegate.progressUpdates(upload: true)
    }

    public var description: String {
        "\(type(of: self))(\(self.taskIdentifier), \(self.originalRequest.method) \(self.originalRequest.url.absoluteString), \(self.state))"
    }

    /// Starts the task, or continues it after ``suspend()``. Does nothing once it is cancelled or completed.
    public func resume() {
        guard let startNow = self.markRunning() else { return }
        if startNow {
            self.launch()
        }
    }

    /// Starts the task and runs it in the calling Swift task, returning once it has completed;
    /// saves the two thread hand-offs of a runner task for callers that only await the task.
    /// When the task was already started (a `cancel()` before this call launches it already
    /// cancelled), it returns at once and the task completes on its runner.
    nonisolated(nonsending) func resumeInline() async {
        guard self.markRunning() == true else { return }
        await self.takeBody()?()
    }

    /// Moves a suspended task to running and tells the session; `nil` when the task was not
    /// suspended, otherwise whether it has to be started now.
    private func markRunning() -> Bool? {
        let startNow: Bool? = self.storage.withLockedValue { state in
            guard state.phase.canTransition(to: .running) else { return nil }
            state.phase = .running
            // Inside the lock, so a racing suspend() cannot close the gate after this opens it.
            self.gate.open()
            defer { state.started = true }
            return !state.started
        }
        if startNow != nil {
            // Told before the task runs, so "resume" always precedes "complete".
            self.tell(self, .resumed)
        }
        return startNow
    }

    /// Pauses a running task: no more body is read, so the server is held back by TCP flow control.
    public func suspend() {
        let suspended = self.storage.withLockedValue { state in
            guard state.phase.canTransition(to: .suspended) else { return false }
            state.phase = .suspended
            self.gate.close()
            return true
        }
        guard suspended else { return }
        self.tell(self, .suspended)
    }

    /// Cancels the task; it completes with ``LupineError/cancelled``. Does nothing once completed.
    public func cancel() {
        let cancelled = self.storage.withLockedValue { state -> (runner: Task<Void, Never>?, mustLaunch: Bool)? in
            guard state.phase.canTransition(to: .canceling) else { return nil }
            state.phase = .canceling
            self.gate.terminate()
            defer { state.started = true }
            return (state.runner, !state.started)
        }
        guard let cancelled else { return }
        if cancelled.mustLaunch {
            // Never resumed: run it already cancelled, so completion follows the one usual path.
            self.launch()
        }
        cancelled.runner?.cancel()
        self.cancellation.cancel()
    }

    /// Whether ``cancel()`` was called; the runner checks it before each step, so a task
    /// cancelled before its runner started never sends anything.
    var isCancelling: Bool { self.storage.withLockedValue { $0.phase == .canceling } }

    /// Throws ``LupineError/cancelled`` when the task or the Swift task running it was cancelled.
    func checkCancellation() throws {
        if Task.isCancelled || self.isCancelling {
            throw LupineError.cancelled
        }
    }

    /// Starts the runner on a Swift task of its own (never on the caller's thread, which may be an
    /// event loop or hold a lock); when `cancel()` got in first (before or while this ran), it is
    /// cancelled.
    private func launch() {
        let body = self.takeBody()
        let runner = Task { if let body { await body() } }
        let cancelled = self.storage.withLockedValue { state in
            state.runner = runner
            return state.phase == .canceling
        }
        if cancelled {
            runner.cancel()
        }
    }

    /// Records the request being sent: a redirect's next hop, or the request with the
    /// credentials of its URL moved into its header.
    func willSend(_ request: Request) {
        self.storage.withLockedValue { $0.currentRequest = request }
    }

    /// Records the response head.
    func didReceive(_ head: ResponseHead) {
        self.storage.withLockedValue { $0.response = head }
    }

    /// Marks the task completed; `false` when it already was, so completion is delivered once.
    func complete(metrics: TransportMetrics?, error: LupineError?) -> Bool {
        self.storage.withLockedValue { state in
            guard state.phase.canTransition(to: .completed) else { return false }
            state.phase = .completed
            state.metrics = metrics
            state.error = error
            return true
        }
    }

    /// Called once the task has completed, before its completion is delivered.
    func didComplete() {}
}

/// A task whose response body is delivered in memory.
///
/// `@unchecked Sendable`: it adds no state to ``SessionTask``, whose state is lock-guarded.
public final class DataTask: SessionTask, @unchecked Sendable {}

/// A task that sends a body from memory, a file or a stream; its response body is delivered in memory.
///
/// `@unchecked Sendable`: it adds no state to ``SessionTask``, whose state is lock-guarded.
public final class UploadTask: SessionTask, @unchecked Sendable {}

/// What a task tells its session when it is resumed or suspended.
enum TaskEvent {
    case resumed, suspended
}
