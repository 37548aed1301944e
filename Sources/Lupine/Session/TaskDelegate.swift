import NIOConcurrencyHelpers
import Foundation

/// Per-task bookkeeping, as AFNetworking's `AFURLSessionManagerTaskDelegate`: byte counts each
/// way, the task's upload and download `Progress`, the progress closures and streams.
///
/// The `Progress` objects are made only when someone asks for them (a progress closure, or
/// ``SessionManager/uploadProgress(for:)``): Foundation's `Progress` is costly to update, and
/// most requests never look at it.
///
/// `@unchecked Sendable`: all mutable state lives in `state`, guarded by its lock; `Progress`
/// is thread-safe; the rest is immutable.
final class TaskDelegate: @unchecked Sendable {
    /// One direction's counts, its `Progress` once made, and its progress streams.
    private struct Direction {
        var completed: Int64 = 0
        /// -1 while unknown. Never 0: Foundation's `Progress` traps when a total of zero meets
        /// its fraction arithmetic, so an empty or absent body stays indeterminate.
        var total: Int64 = -1
        var progress: Progress?
        var streams: [AsyncStream<TaskProgress>.Continuation] = []

        var reading: TaskProgress { TaskProgress(completedUnitCount: self.completed, totalUnitCount: self.total) }
    }

    /// Which way the bytes go.
    private enum Side {
        case upload, download
    }

    private struct State {
        var upload = Direction()
        var download = Direction()
        var isFinished = false
        /// The socket's latest upload total, not yet delivered off the event loop.
        var undeliveredBytesSent: Int?

        /// One side's direction (a `switch`: a key path would be read through the runtime).
        subscript(side: Side) -> Direction {
            switch side {
            case .upload: return self.upload
            case .download: return self.download
            }
        }

        /// Changes one side's direction in place.
        mutating func modify<Result>(_ side: Side, _ change: (inout Direction) -> Result) -> Result {
            switch side {
            case .upload: return change(&self.upload)
            case .download: return change(&self.download)
            }
        }
    }

    private let state = NIOLockedValueBox(State())
    private let uploadProgressHandler: (@Sendable (Progress) -> Void)?
    private let downloadProgressHandler: (@Sendable (Progress) -> Void)?

    init(
        uploadProgress: (@Sendable (Progress) -> Void)?,
        downloadProgress: (@Sendable (Progress) -> Void)?
    ) {
        self.uploadProgressHandler = uploadProgress
        self.downloadProgressHandler = downloadProgress
    }

    /// Makes, for `task`, the `Progress` of each direction that has a progress closure, so that
    /// every update can reach its closure. The delegate keeps no reference to its task: a weak
    /// one would give every task a side table, slowing each retain and release of it.
    func bind(to task: SessionTask) {
        if self.uploadProgressHandler != nil {
            _ = self.progress(.upload, of: task)
        }
        if self.downloadProgressHandler != nil {
            _ = self.progress(.download, of: task)
        }
    }

    /// The upload `Progress` of `task`, made on first use; cancelling, pausing or resuming it drives the task.
    func uploadProgress(of task: SessionTask) -> Progress { self.progress(.upload, of: task) }
    /// The download `Progress` of `task`, made on first use; cancelling, pausing or resuming it drives the task.
    func downloadProgress(of task: SessionTask) -> Progress { self.progress(.download, of: task) }
    /// Upload byte counts so far.
    var uploadReading: TaskProgress { self.state.withLockedValue { $0.upload.reading } }
    /// Download byte counts so far.
    var downloadReading: TaskProgress { self.state.withLockedValue { $0.download.reading } }

    /// The request body is `length` bytes (or unknown when `nil`).
    func willSendBody(length: Int?) {
        self.update(.upload, handler: nil) { $0.total = Self.total(length) }
    }

    /// Where upload totals reported on an event loop are delivered, in order, so that no
    /// progress closure, `Progress` observer or stream consumer ever runs on an event loop.
    private static let uploadProgressQueue = DispatchQueue(label: "com.lupine.session.upload-progress")

    /// The socket has taken `bytes` body bytes so far (called on an event loop). The total is
    /// recorded at once and delivered on a serial queue; readings that arrive faster than they
    /// are delivered are coalesced into the latest.
    func socketDidTakeBody(bytes: Int) {
        let hasHandler = self.uploadProgressHandler != nil
        let mustSchedule = self.state.withLockedValue { state in
            // With nobody watching, the count is all there is to keep: no hop off the loop.
            guard hasHandler || state.upload.progress != nil || !state.upload.streams.isEmpty else {
                state.upload.completed = Int64(bytes)
                return false
            }
            defer { state.undeliveredBytesSent = bytes }
            return state.undeliveredBytesSent == nil
        }
        guard mustSchedule else { return }
        Self.uploadProgressQueue.async {
            self.deliverUndeliveredBytesSent()
        }
    }

    private func deliverUndeliveredBytesSent() {
        let bytes = self.state.withLockedValue { state in
            defer { state.undeliveredBytesSent = nil }
            return state.isFinished ? nil : state.undeliveredBytesSent
        }
        if let bytes {
            self.didSendBody(bytes: bytes)
        }
    }

    /// The socket has taken `bytes` body bytes so far. A body of unknown length keeps an unknown
    /// total until the task finishes.
    private func didSendBody(bytes: Int) {
        guard bytes > 0 else { return }
        self.update(.upload, handler: self.uploadProgressHandler) { $0.completed = Int64(bytes) }
    }

    /// The response head announced `length` body bytes (or an unknown length when `nil`), to
    /// follow `alreadyReceived` bytes a resumed download holds from before.
    func willReceiveBody(length: Int?, alreadyReceived: Int = 0) {
        self.update(.download, handler: nil) { direction in
            direction.completed = Int64(alreadyReceived)
            // A length no count can reach (a hostile Content-Length) is an unknown total.
            direction.total = Self.total(
                length.flatMap { length in
                    let (total, overflow) = length.addingReportingOverflow(alreadyReceived)
                    return overflow ? nil : total
                }
            )
        }
    }

    /// `bytes` more body bytes arrived.
    func didReceiveBody(bytes: Int) {
        self.update(.download, handler: self.downloadProgressHandler) { $0.completed += Int64(bytes) }
    }

    /// The task completed: successful progress reaches 1.0, and the progress streams finish.
    func finish(succeeded: Bool) {
        // The last upload total, if still on its way, counts before the totals are settled.
        self.deliverUndeliveredBytesSent()
        if succeeded {
            for (direction, handler) in [(Side.upload, self.uploadProgressHandler), (Side.download, self.downloadProgressHandler)] {
                self.update(direction, handler: handler) { direction in
                    if direction.completed > 0 { direction.total = direction.completed }
                }
            }
        }
        let continuations = self.state.withLockedValue { state in
            state.isFinished = true
            defer {
                state.upload.streams.removeAll()
                state.download.streams.removeAll()
            }
            return state.upload.streams + state.download.streams
        }
        for continuation in continuations {
            continuation.finish()
        }
    }

    /// A new stream of upload (`upload == true`) or download progress readings, ending with the task.
    func progressUpdates(upload: Bool) -> AsyncStream<TaskProgress> {
        let direction: Side = upload ? .upload : .download
        return AsyncStream(bufferingPolicy: .bufferingNewest(64)) { continuation in
            let (reading, finished) = self.state.withLockedValue { state in
                if !state.isFinished {
                    state.modify(direction) { $0.streams.append(continuation) }
                }
                return (state[direction].reading, state.isFinished)
            }
            continuation.yield(reading)
            if finished {
                continuation.finish()
            }
        }
    }

    /// Applies `change` to one direction, then tells its progress object, streams and closure.
    private func update(
        _ direction: Side,
        handler: (@Sendable (Progress) -> Void)?,
        _ change: (inout Direction) -> Void
    ) {
        let (reading, progress, streams) = self.state.withLockedValue { state in
            state.modify(direction, change)
            let current = state[direction]
            return (current.reading, current.progress, current.streams)
        }
        for continuation in streams {
            continuation.yield(reading)
        }
        // A direction with a closure got its `Progress` in `bind(to:)`.
        guard let progress else { return }
        Self.apply(reading, to: progress)
        handler?(progress)
    }

    private func progress(_ direction: Side, of task: SessionTask) -> Progress {
        let (progress, isNew, reading) = self.state.withLockedValue { state in
            if let existing = state[direction].progress {
                return (existing, false, state[direction].reading)
            }
            // No implicit parent: a `Progress` made while the caller's own is current would
            // otherwise be adopted by it and use up its pending units.
            let made = Progress(parent: nil, userInfo: nil)
            made.totalUnitCount = -1
            state.modify(direction) { $0.progress = made }
            return (made, true, state[direction].reading)
        }
        if isNew {
            progress.isCancellable = true
            progress.isPausable = true
            progress.cancellationHandler = { [weak task] in task?.cancel() }
            progress.pausingHandler = { [weak task] in task?.suspend() }
            progress.resumingHandler = { [weak task] in task?.resume() }
            Self.apply(reading, to: progress)
        }
        return progress
    }

    private static func apply(_ reading: TaskProgress, to progress: Progress) {
        if progress.totalUnitCount != reading.totalUnitCount {
            progress.totalUnitCount = reading.totalUnitCount
        }
        progress.completedUnitCount = reading.completedUnitCount
    }

    private static func total(_ length: Int?) -> Int64 {
        guard let length, length > 0 else { return -1 }
        return Int64(length)
    }
}
