import Foundation

/// Download tasks, as AFNetworking's `downloadTaskWithRequest:progress:destination:completionHandler:`
/// and `downloadTaskWithResumeData:…`: the body streams to a temporary file in
/// ``SessionManager/downloadDirectory``, then moves to the destination; the completion's
/// ``TaskCompletion/fileURL`` says where it is. Without a destination the file stays in the
/// temporary folder, and is the caller's to move or delete.
///
/// A status outside 200..<300 fails the task with the error page in the validation error, and
/// leaves no file. An interrupted transfer fails with ``LupineError/DownloadFailureReason/interrupted(resumeData:underlying:)``
/// when it can be resumed.
extension SessionManager {
    /// A suspended task that downloads `request`'s response body to a file.
    public func downloadTask(
        with request: Request,
        progress: (@Sendable (Progress) -> Void)? = nil,
        destination: DownloadDestination? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> DownloadTask {
        self.makeDownloadTask(request, resumeData: nil, progress: progress, destination: destination, completesOnQueue: true) { _, completion in
            completionHandler(completion)
        }
    }

    /// A suspended task that continues the download `resumeData` describe, asking only for the
    /// missing bytes (`Range`) if the resource is unchanged (`If-Range`).
    ///
    /// - Throws: ``LupineError/downloadFailed(_:)`` when the resume data are corrupt, from
    ///   another version of Lupine, or name a partial file that is not a download task's file in
    ///   ``downloadDirectory`` (opaque bytes never get to write anywhere else).
    public func downloadTask(
        withResumeData resumeData: [UInt8],
        progress: (@Sendable (Progress) -> Void)? = nil,
        destination: DownloadDestination? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) throws(LupineError) -> DownloadTask {
        let resume = try ResumeData(encoded: resumeData)
        guard resume.isInside(self.downloadDirectory) else {
            throw .downloadFailed(.resumeDataCorrupt(reason: "the partial file \(resume.temporaryFileURL.path) is not a download file in \(self.downloadDirectory.path)"))
        }
        return self.resumedDownloadTask(Request(url: resume.url), resume, progress: progress, destination: destination, completionHandler: completionHandler)
    }

    /// A suspended task that continues `resumeData` with `request` (its header fields, such as
    /// credentials, travel with the ranged request).
    ///
    /// The partial file may be any file, such as one a previous run of a program left; it is
    /// never deleted, and nothing in it changes until the server answers with a body: a `206`
    /// continues it after `bytesReceived` (cutting anything past them), a `200` rewrites it whole.
    /// With `bytesReceived` 0 the whole body is asked for and written into the file in place.
    ///
    /// - Throws: ``LupineError/DownloadFailureReason/resumeDataForAnotherURL(expected:found:)``
    ///   when the resume data belong to another URL (neither the one the download started with
    ///   nor the one it was redirected to).
    public func downloadTask(
        with request: Request,
        resumeData: ResumeData,
        progress: (@Sendable (Progress) -> Void)? = nil,
        destination: DownloadDestination? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) throws(LupineError) -> DownloadTask {
        guard resumeData.belongs(to: request.url) else {
            throw .downloadFailed(.resumeDataForAnotherURL(expected: request.url, found: resumeData.url))
        }
        return self.resumedDownloadTask(request, resumeData, progress: progress, destination: destination, completionHandler: completionHandler)
    }

    /// Downloads `request`'s response body (continuing `resumeData` when given) and returns the
    /// response whose value is the file's final URL.
    public func download(
        _ request: Request,
        resumeData: ResumeData? = nil,
        destination: DownloadDestination? = nil
    ) async throws -> Response<URL> {
        if let resumeData, !resumeData.belongs(to: request.url) {
            throw LupineError.downloadFailed(.resumeDataForAnotherURL(expected: request.url, found: resumeData.url))
        }
        let (completion, _) = await self.runToCompletion { completionHandler in
            self.makeDownloadTask(request, resumeData: resumeData, progress: nil, destination: destination, completesOnQueue: false, completionHandler: completionHandler)
        }
        if let error = completion.error {
            throw error
        }
        guard let fileURL = completion.fileURL else {
            throw LupineError.responseSerializationFailed(.inputDataNilOrZeroLength)
        }
        return Response(
            request: request,
            head: completion.response,
            data: [],
            result: .success(fileURL),
            metrics: completion.metrics,
            redirectChain: completion.redirectChain
        )
    }

    private func resumedDownloadTask(
        _ request: Request,
        _ resumeData: ResumeData,
        progress: (@Sendable (Progress) -> Void)?,
        destination: DownloadDestination?,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> DownloadTask {
        self.makeDownloadTask(request, resumeData: resumeData, progress: progress, destination: destination, completesOnQueue: true) { _, completion in
            completionHandler(completion)
        }
    }

    private func makeDownloadTask(
        _ request: Request,
        resumeData: ResumeData?,
        progress: (@Sendable (Progress) -> Void)?,
        destination: DownloadDestination?,
        completesOnQueue: Bool,
        completionHandler: @escaping @Sendable (DownloadTask, TaskCompletion) -> Void
    ) -> DownloadTask {
        self.makeTask(
            DownloadTask.self,
            with: request,
            bodyDestination: .file(DownloadPlan(resumeData: resumeData, directory: self.downloadDirectory, destination: destination)),
            // The download checks the status itself (a 416 can complete a resumed file).
            serialization: TaskSerialization(HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 100..<600))),
            hooks: SessionHooks(),
            uploadProgress: nil,
            downloadProgress: progress,
            completesOnQueue: completesOnQueue,
            completionHandler: completionHandler
        )
    }
}
