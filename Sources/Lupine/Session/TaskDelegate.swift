import Foundation
import NIOConcurrencyHelpers

/// Per-task bookkeeping, as AFNetworking's `AFURLSessionManagerTaskDelegate`: the task's upload
/// and download `Progress`, the progress closures and streams, and the completion handler.
///
/// `@unchecked Sendable`: `Foundation.Progress` is thread-safe; the progress-stream
/// continuations live in a lock box; everything else is immutable.
final class TaskDelegate: @unchecked Sendable {
    let uploadProgress = Progress(totalUnitCount: -1)
    let downloadProgress = Progress(totalUnitCount: -1)
    private let uploadProgressHandler: (@Sendable (Progress) -> Void)?
    private let downloadProgressHandler: (@Sendable (Progress) -> Void)?
    let completionHandler: @Sendable (TaskCompletion) -> Void
    private let streams = NIOLockedValueBox(ProgressStreams())

    private struct ProgressStreams {
        var upload: [AsyncStream<TaskProgress>.Continuation] = []
        var download: [AsyncStream<TaskProgress>.Continuation] = []
        var isFinished = false
    }

    init(
        uploadProgress: (@Sendable (Progress) -> Void)?,
        downloadProgress: (@Sendable (Progress) -> Void)?,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) {
        self.uploadProgressHandler = uploadProgress
        self.downloadProgressHandler = downloadProgress
        self.completionHandler = completionHandler
    }

    /// Lets the progress objects drive the task: cancelling, pausing or resuming a progress
    /// cancels, suspends or resumes the task.
    func bind(to task: SessionTask) {
        for progress in [self.uploadProgress, self.downloadProgress] {
            progress.isCancellable = true
            progress.isPausable = true
            progress.cancellationHandler = { [weak task] in task?.cancel() }
            progress.pausingHandler = { [weak task] in task?.suspend() }
            progress.resumingHandler = { [weak task] in task?.resume() }
        }
    }

    // Foundation's `Progress` traps when a total of zero meets its fraction arithmetic, so
    // an empty or absent body leaves the total indeterminate (-1) instead.

    /// The request body is `length` bytes (or unknown when `nil`).
    func willSendBody(length: Int?) {
        self.uploadProgress.totalUnitCount = Self.total(length)
    }

    /// The whole request body went out.
    func didSendBody(bytes: Int) {
        guard bytes > 0 else { return }
        if self.uploadProgress.totalUnitCount < 0 {
            self.uploadProgress.totalUnitCount = Int64(bytes)
        }
        self.uploadProgress.completedUnitCount = Int64(bytes)
        self.report(self.uploadProgress, to: \.upload, handler: self.uploadProgressHandler)
    }

    /// The response head announced `length` body bytes (or an unknown length when `nil`).
    func willReceiveBody(length: Int?) {
        self.downloadProgress.completedUnitCount = 0
        self.downloadProgress.totalUnitCount = Self.total(length)
    }

    /// `bytes` more body bytes arrived.
    func didReceiveBody(bytes: Int) {
        self.downloadProgress.completedUnitCount += Int64(bytes)
        self.report(self.downloadProgress, to: \.download, handler: self.downloadProgressHandler)
    }

    /// The task completed: successful progress reaches 1.0, and the progress streams finish.
    func finish(succeeded: Bool) {
        if succeeded {
            for progress in [self.uploadProgress, self.downloadProgress]
            where progress.completedUnitCount > 0 && progress.totalUnitCount != progress.completedUnitCount {
                progress.totalUnitCount = progress.completedUnitCount
            }
            self.report(self.uploadProgress, to: \.upload, handler: self.uploadProgressHandler)
            self.report(self.downloadProgress, to: \.download, handler: self.downloadProgressHandler)
        }
        let continuations = self.streams.withLockedValue { streams in
            streams.isFinished = true
            defer {
                streams.upload.removeAll()
                streams.download.removeAll()
            }
            return streams.upload + streams.download
        }
        for continuation in continuations {
            continuation.finish()
        }
    }

    /// A new stream of upload (`upload == true`) or download progress readings, ending with the task.
    func progressUpdates(upload: Bool) -> AsyncStream<TaskProgress> {
        let progress = upload ? self.uploadProgress : self.downloadProgress
        return AsyncStream(bufferingPolicy: .bufferingNewest(64)) { continuation in
            continuation.yield(Self.reading(of: progress))
            let finished = self.streams.withLockedValue { streams in
                guard !streams.isFinished else { return true }
                if upload {
                    streams.upload.append(continuation)
                } else {
                    streams.download.append(continuation)
                }
                return false
            }
            if finished {
                continuation.finish()
            }
        }
    }

    private func report(
        _ progress: Progress,
        to streams: KeyPath<ProgressStreams, [AsyncStream<TaskProgress>.Continuation]>,
        handler: (@Sendable (Progress) -> Void)?
    ) {
        let reading = Self.reading(of: progress)
        for continuation in self.streams.withLockedValue({ $0[keyPath: streams] }) {
            continuation.yield(reading)
        }
        handler?(progress)
    }

    private static func total(_ length: Int?) -> Int64 {
        guard let length, length > 0 else { return -1 }
        return Int64(length)
    }

    private static func reading(of progress: Progress) -> TaskProgress {
        TaskProgress(completedUnitCount: progress.completedUnitCount, totalUnitCount: progress.totalUnitCount)
    }
}
