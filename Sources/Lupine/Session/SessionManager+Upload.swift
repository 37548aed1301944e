import Foundation

/// Upload tasks, as AFNetworking's `uploadTaskWithRequest:fromFile:`, `fromData:` and
/// `uploadTaskWithStreamedRequest:`. Upload progress counts the bytes the socket has taken.
extension SessionManager {
    /// A suspended task that sends `request` with the file at `fileURL` as its body, read in chunks.
    public func uploadTask(
        with request: Request,
        fromFile fileURL: URL,
        progress: (@Sendable (Progress) -> Void)? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> UploadTask {
        var request = request
        request.body = .file(fileURL)
        return self.uploadTask(withStreamedRequest: request, progress: progress, completionHandler: completionHandler)
    }

    /// A suspended task that sends `request` with `bytes` as its body.
    public func uploadTask(
        with request: Request,
        from bytes: [UInt8],
        progress: (@Sendable (Progress) -> Void)? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> UploadTask {
        var request = request
        request.body = .bytes(bytes)
        return self.uploadTask(withStreamedRequest: request, progress: progress, completionHandler: completionHandler)
    }

    /// A suspended task that sends `request` with the body it already has: a stream, a multipart
    /// form, a file or bytes.
    public func uploadTask(
        withStreamedRequest request: Request,
        progress: (@Sendable (Progress) -> Void)? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> UploadTask {
        self.makeTask(
            UploadTask.self,
            with: request,
            serialization: TaskSerialization(self.responseSerializer),
            hooks: SessionHooks(),
            uploadProgress: progress,
            downloadProgress: nil,
            completesOnQueue: true
        ) { _, completion in
            completionHandler(completion)
        }
    }
}
