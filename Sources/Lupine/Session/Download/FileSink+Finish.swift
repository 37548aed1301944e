import Foundation

extension FileSink {
    /// Settles the download: on success the file moves to its destination (an error page fails
    /// the task, leaving no file of this run's); on failure the partial file is kept with resume
    /// data when it can be resumed, and removed otherwise, unless this run did not create it.
    mutating func finish(_ outcome: inout ExecutionOutcome, error: LupineError?) async {
        outcome.data = self.errorPage
        guard let file else {
            outcome.error = error
            return
        }
        if let error {
            outcome.error = await self.failure(error, file: file, finalURL: outcome.request.url)
            return
        }
        do {
            try await file.flush()
            await file.close()
            // A 416 that got this far confirmed the resumed file is already whole.
            if let head = outcome.head, !(200..<300).contains(head.statusCode), !(head.statusCode == 416 && self.resuming) {
                if self.ownsFile {
                    await file.remove()
                }
                outcome.error = .responseValidationFailed(.unacceptableStatusCode(code: head.statusCode, head: head, body: self.errorPage, underlying: nil))
                return
            }
            outcome.fileURL = try self.move(file.url, for: outcome.head)
        } catch {
            outcome.error = await self.failure(error, file: file, finalURL: outcome.request.url)
        }
    }

    /// Moves the finished file where the destination says (see ``FilePlacement``: only a
    /// regular file is ever replaced, and only when asked); without one it stays where it is. A
    /// file that cannot be placed is removed if this run made it.
    private func move(_ file: URL, for head: ResponseHead?) throws(LupineError) -> URL {
        guard let destination = self.plan.destination, let head else { return file }
        let (target, options) = destination(file, head)
        guard target.standardizedFileURL != file.standardizedFileURL else { return file }
        do {
            return try FilePlacement.place(
                file,
                at: target,
                replacing: options.contains(.removePreviousFile),
                creatingFolders: options.contains(.createIntermediateDirectories)
            )
        } catch {
            if self.ownsFile {
                try? FileManager.default.removeItem(at: file)
            }
            switch error {
            case .notReplaceable(let url, let reason): throw .downloadFailed(.destinationNotReplaceable(url, reason: reason))
            case .failed(let url, let reason): throw .downloadFailed(.cannotMoveFile(from: file, to: url, reason: reason))
            }
        }
    }

    /// The error a download ends with. A transfer that stopped partway keeps its file and
    /// carries resume data when it can be resumed; otherwise the file is removed, unless this run
    /// did not create it.
    private func failure(_ error: any Error, file: DownloadFile, finalURL: URL) async -> LupineError {
        let lupineError = LupineError(translating: error, from: .transport)
        let interrupted: Bool
        switch lupineError {
        case .cancelled: interrupted = self.plan.resumeDataRequest.isAsked
        case .transport: interrupted = true
        default: interrupted = false
        }
        guard interrupted, file.length > 0, let validator = self.validator else {
            await self.release(file)
            return lupineError
        }
        do {
            try await file.flush()
        } catch {
            await self.release(file)
            return error
        }
        await file.close()
        var resumeData = ResumeData(
            url: finalURL,
            entityTag: validator.entityTag,
            lastModified: validator.lastModified,
            bytesReceived: file.length,
            temporaryFileURL: file.url
        )
        resumeData.originalURL = self.plan.resumeData?.originalURL ?? self.original.url
        if case .cancelled = lupineError {
            self.plan.resumeDataRequest.deliver(resumeData.encoded())
            return lupineError
        }
        return .downloadFailed(.interrupted(resumeData: resumeData.encoded(), underlying: lupineError))
    }

    /// Lets go of the file: removed when this run made it, closed otherwise.
    private func release(_ file: DownloadFile) async {
        if self.ownsFile {
            await file.remove()
        } else {
            await file.close()
        }
    }
}
