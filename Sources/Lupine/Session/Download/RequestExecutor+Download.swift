import Foundation
import NIOCore

extension RequestExecutor {
    /// A `416` whose range does not say the file is already whole: the download starts over.
    private struct RestartFromZero: Error {}

    /// Runs a download: the body streams into a temporary file in `directory` (continuing the
    /// file of `resumeData` with `Range` and `If-Range`), then the file moves to `destination`.
    ///
    /// A resumed download that the server answers with `200` (the resource changed, or ranges are
    /// not supported) starts over from zero; a `416` either confirms the file is whole or starts
    /// over. A failure partway, a transport error or a cancel that asked for resume data, keeps
    /// the temporary file and yields resume data when the response had a validator. A file this
    /// run did not create (the file of `resumeData`) is never deleted, whatever happens.
    ///
    /// Downloads ask for `Accept-Encoding: identity` unless the request says otherwise: byte
    /// ranges count the bytes of the encoded body, so only an unencoded body can be resumed.
    func download(
        _ task: DownloadTask,
        resumeData: ResumeData?,
        directory: URL,
        destination: DownloadDestination?
    ) async -> ExecutionOutcome {
        var outcome = ExecutionOutcome(request: task.originalRequest)
        var original = task.originalRequest
        if original.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            original.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        let ownsFile = resumeData == nil
        var file: DownloadFile?
        // Present while the file can be resumed; resume data may carry no validator at all (a
        // partial file a user asked to continue), and then neither does the continuation.
        var validator = resumeData.map { (entityTag: $0.entityTag, lastModified: $0.lastModified) }
        do {
            let opened: DownloadFile
            if let resumeData {
                opened = try await DownloadFile.reopen(resumeData)
            } else {
                opened = try await DownloadFile.create(in: directory)
            }
            file = opened
            // Resume data at byte 0 (a file a caller wants written in place) ask for the whole body.
            var resuming = (resumeData?.bytesReceived ?? 0) > 0
            while true {
                let request = resuming ? Self.ranged(original, from: opened.length, ifRange: resumeData?.ifRange) : original
                do {
                    outcome.data = try await self.run(task, startingWith: request, into: &outcome) { body, head in
                        // The head's validator counts once its body has started to replace or
                        // continue the file; until then the file's bytes are the old ones.
                        let offered = ResumeData.validator(of: head) ?? (head.statusCode == 206 ? validator : nil)
                        return try await self.receive(body, head: head, into: opened, resuming: resuming, task: task) {
                            validator = offered
                        }
                    }
                    break
                } catch is RestartFromZero {
                    // The file is cut only once the whole new body comes (a 2xx): until then a
                    // failed retry leaves it as it was, with no resume data for it.
                    resuming = false
                    validator = nil
                }
            }
            try await opened.flush()
            await opened.close()
            // A 416 that got this far confirmed the resumed file is already whole.
            if let head = outcome.head, !(200..<300).contains(head.statusCode), !(head.statusCode == 416 && resuming) {
                if ownsFile {
                    await opened.remove()
                }
                outcome.error = .responseValidationFailed(.unacceptableStatusCode(code: head.statusCode, head: head, body: outcome.data, underlying: nil))
                return outcome
            }
            outcome.fileURL = try Self.move(opened.url, for: outcome.head, to: destination, ownsFile: ownsFile)
        } catch {
            outcome.error = await Self.failure(
                error,
                of: task,
                file: file,
                ownsFile: ownsFile,
                validator: validator,
                urls: (original: resumeData?.originalURL ?? original.url, final: outcome.request.url)
            )
        }
        return outcome
    }

    /// Writes the body of a successful answer to `file`; returns the body of any other answer
    /// (an error page) in memory, for the validation error.
    ///
    /// The file is cut (to nothing for a new body, to the resumed length for a `206`) only when
    /// the body's first bytes arrive, or when it ends empty: a head followed by a stall, a cut or
    /// a cancel leaves the file as it was. `bodyStarted` is called right after the cut.
    private func receive(
        _ body: ResponseBody,
        head: ResponseHead,
        into file: DownloadFile,
        resuming: Bool,
        task: SessionTask,
        bodyStarted: () -> Void
    ) async throws -> [UInt8] {
        let length = head.headers.first(name: "Content-Length").flatMap(Int.init)
        // The whole file's length a 206 announced, with its Content-Range.
        var wholeLength: (Int, String?)?
        // The length the file is cut to when the body starts.
        var cut: Int?
        switch head.statusCode {
        case 206 where resuming:
            let contentRange = head.headers.first(name: "Content-Range")
            guard Self.rangeStart(of: contentRange) == file.length else {
                throw LupineError.downloadFailed(.unexpectedContentRange(contentRange))
            }
            // Bytes past those the resume data account for go once the rest comes.
            cut = file.length
            task.delegate.willReceiveBody(length: length, alreadyReceived: file.length)
            wholeLength = Self.completeLength(of: contentRange).map { ($0, contentRange) }
        case 416 where resuming:
            try await Self.discard(body)
            guard Self.completeLength(of: head.headers.first(name: "Content-Range")) == file.length else {
                throw RestartFromZero()
            }
            // The server says the file is already whole: nothing more to receive.
            try await file.truncate(to: file.length)
            task.delegate.willReceiveBody(length: 0, alreadyReceived: file.length)
            return []
        case 200..<300:
            // What the file held goes once the new body comes.
            cut = 0
            task.delegate.willReceiveBody(length: length)
        default:
            task.delegate.willReceiveBody(length: length)
            return try await self.readBody(body, expectedLength: length, of: task)
        }
        try await self.forEachChunk(of: body, for: task) { chunk in
            if let length = cut {
                try await file.truncate(to: length)
                cut = nil
                bodyStarted()
            }
            try await file.append(chunk)
        }
        if let length = cut {
            // A body that ended cleanly without a byte.
            try await file.truncate(to: length)
            bodyStarted()
        }
        // A short body that ended cleanly (no Content-Length to hold it to) is not a whole file.
        if let (whole, contentRange) = wholeLength, file.length != whole {
            throw LupineError.downloadFailed(.unexpectedContentRange(contentRange))
        }
        return []
    }

    /// `request` asking for the bytes from `offset` on, only if the resource is unchanged.
    private static func ranged(_ request: Request, from offset: Int, ifRange: String?) -> Request {
        var ranged = request
        ranged.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
        ranged.setValue(ifRange, forHTTPHeaderField: "If-Range")
        return ranged
    }

    /// The first byte of `bytes first-last/complete`.
    private static func rangeStart(of contentRange: String?) -> Int? {
        guard let contentRange, contentRange.lowercased().hasPrefix("bytes ") else { return nil }
        return contentRange.dropFirst(6).split(separator: "-").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The complete length of `bytes */complete` (or `bytes first-last/complete`).
    private static func completeLength(of contentRange: String?) -> Int? {
        contentRange?.split(separator: "/").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Moves the finished file where `destination` says (see ``FilePlacement``: only a regular
    /// file is ever replaced, and only when asked); without one it stays where it is. A file that
    /// cannot be placed is removed if this run made it.
    private static func move(_ file: URL, for head: ResponseHead?, to destination: DownloadDestination?, ownsFile: Bool) throws(LupineError) -> URL {
        guard let destination, let head else { return file }
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
            if ownsFile {
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
    private static func failure(
        _ error: any Error,
        of task: DownloadTask,
        file: DownloadFile?,
        ownsFile: Bool,
        validator: (entityTag: String?, lastModified: String?)?,
        urls: (original: URL, final: URL)
    ) async -> LupineError {
        let lupineError = Self.lupineError(for: error)
        let interrupted: Bool
        switch lupineError {
        case .cancelled: interrupted = task.wantsResumeData
        case .transport: interrupted = true
        default: interrupted = false
        }
        guard interrupted, let file, file.length > 0, let validator else {
            if ownsFile {
                await file?.remove()
            } else {
                await file?.close()
            }
            return lupineError
        }
        do {
            try await file.flush()
        } catch {
            if ownsFile {
                await file.remove()
            } else {
                await file.close()
            }
            return error
        }
        await file.close()
        var resumeData = ResumeData(
            url: urls.final,
            entityTag: validator.entityTag,
            lastModified: validator.lastModified,
            bytesReceived: file.length,
            temporaryFileURL: file.url
        )
        resumeData.originalURL = urls.original
        if case .cancelled = lupineError {
            task.deliverResumeData(resumeData.encoded())
            return lupineError
        }
        return .downloadFailed(.interrupted(resumeData: resumeData.encoded(), underlying: lupineError))
    }
}
