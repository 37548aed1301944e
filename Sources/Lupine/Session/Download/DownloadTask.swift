import NIOConcurrencyHelpers

/// A task whose response body streams to a temporary file, moved to its destination when it
/// completes. It can be cancelled with resume data, to continue later where it stopped.
///
/// `@unchecked Sendable`: its own state, the pending resume-data handler, lives in a lock box;
/// the rest is ``SessionTask``'s, which is lock-guarded.
public final class DownloadTask: SessionTask, @unchecked Sendable {
    private let resumeDataHandler = NIOLockedValueBox<(@Sendable ([UInt8]?) -> Void)?>(nil)

    /// Cancels the download and hands `completionHandler` resume data — `nil` when the download
    /// cannot be resumed (nothing received yet, no `ETag` or `Last-Modified`, or already
    /// completed). The partial file is kept for ``SessionManager/downloadTask(withResumeData:progress:destination:completionHandler:)``.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable ([UInt8]?) -> Void) {
        let alreadyAsked = self.resumeDataHandler.withLockedValue { handler in
            defer { if handler == nil { handler = completionHandler } }
            return handler != nil
        }
        guard !alreadyAsked else {
            completionHandler(nil)
            return
        }
        if self.state == .completed {
            self.deliverResumeData(nil)
        } else {
            self.cancel()
        }
    }

    /// Cancels the download; returns resume data, or `nil` when it cannot be resumed.
    public func cancelByProducingResumeData() async -> [UInt8]? {
        await withCheckedContinuation { continuation in
            self.cancel(byProducingResumeData: { continuation.resume(returning: $0) })
        }
    }

    /// Whether a cancel asked for resume data.
    var wantsResumeData: Bool { self.resumeDataHandler.withLockedValue { $0 != nil } }

    /// Hands `resumeData` to the pending handler, once.
    func deliverResumeData(_ resumeData: [UInt8]?) {
        let handler = self.resumeDataHandler.withLockedValue { handler in
            defer { handler = nil }
            return handler
        }
        handler?(resumeData)
    }
}
