/// A task whose response body streams to a temporary file, moved to its destination when it
/// completes. It can be cancelled with resume data, to continue later where it stopped.
///
/// `@unchecked Sendable`: it adds no mutable state to ``SessionTask``, whose state is
/// lock-guarded; the pending resume-data handler lives in its plan's lock box.
public final class DownloadTask: SessionTask, @unchecked Sendable {
    /// Cancels the download and hands `completionHandler` resume data — `nil` when the download
    /// cannot be resumed (nothing received yet, no `ETag` or `Last-Modified`, or already
    /// completed). The partial file is kept for ``SessionManager/downloadTask(withResumeData:progress:destination:completionHandler:)``.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable ([UInt8]?) -> Void) {
        guard let request = self.resumeDataRequest, request.ask(completionHandler) else {
            completionHandler(nil)
            return
        }
        if self.state == .completed {
            request.deliver(nil)
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

    /// A cancel that asked for resume data after the download got past needing them gets none.
    override func didComplete() {
        self.resumeDataRequest?.deliver(nil)
    }

    private var resumeDataRequest: ResumeDataRequest? {
        guard case .file(let plan) = self.bodyDestination else { return nil }
        return plan.resumeDataRequest
    }
}
