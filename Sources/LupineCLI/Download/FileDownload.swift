import ArgumentParser
import Foundation
import Lupine
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A download into a regular file, in place, as `lupine download` runs it (see
/// ``DownloadCommand``): the file is continued (`--continue`) or, once the server answers with a
/// body, rewritten; never removed, except an empty file this run created itself.
struct FileDownload {
    let request: Request
    let file: URL
    /// Whether the file was there before this run.
    let existed: Bool
    let continuing: Bool
    let manager: HTTPSessionManager
    let output: ExchangeOutput

    func run() async throws {
        if !self.existed {
            try self.create()
        }
        let resumeData = try self.resumeData()
        let resumableBody = NIOLockedValueBox(false)
        let refusal = NIOLockedValueBox(ContinueRefusal())
        self.watchTheHead(resumableBody: resumableBody, refusal: refusal, continuing: resumeData)
        let bar = isatty(STDERR_FILENO) == 1 ? ProgressBar() : nil
        // Until the bar draws, a spinner shows that the request is under way.
        let spinner = ActivitySpinner.attach(to: self.manager, for: self.request)
        let running = NIOLockedValueBox<DownloadTask?>(nil)
        let watch = TerminationSignal.watch { _ in running.withLockedValue { $0 }?.cancel() }
        defer { watch.stop() }
        let progress: (@Sendable (Progress) -> Void)?
        if let bar {
            progress = { reading in
                spinner?.finish()
                bar.update(reading)
            }
        } else {
            progress = nil
        }
        let completion: TaskCompletion = try await ActivitySpinner.running(spinner) {
            try await withCheckedThrowingContinuation { continuation in
                do {
                    let task = try self.manager.downloadTask(with: self.request, resumeData: resumeData, progress: progress) {
                        continuation.resume(returning: $0)
                    }
                    running.withLockedValue { $0 = task }
                    // A signal that came before the task was known.
                    if watch.receivedSignal != nil {
                        task.cancel()
                    }
                    task.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        bar?.finish()
        let refused = refusal.withLockedValue { $0 }
        if completion.error != nil, refused.wholeBody != nil {
            guard refused.meansComplete(held: resumeData.bytesReceived) else {
                throw HTTPExchange.fail(refused.reason(file: self.file, held: resumeData.bytesReceived), code: 1)
            }
            StandardError.write(
                "\(LocalPath.shown(self.file)) already holds the \(resumeData.bytesReceived) bytes the server sends (it ignores Range, so only "
                    + "the length was compared): nothing to download\n"
            )
            return
        }
        if let error = completion.error {
            throw self.failure(error, signal: watch.receivedSignal, resumableBody: resumableBody.withLockedValue { $0 })
        }
        ResumeRecord.remove(for: self.file)
        // Resumed only if the last answer continued the bytes the run started with (a download
        // that started over may end with a 206 from byte 0).
        let continued = completion.response?.headers.first(name: "Content-Range")?.hasPrefix("bytes \(resumeData.bytesReceived)-") == true
        let resumed = resumeData.bytesReceived > 0 && completion.response?.statusCode == 206 && continued ? " (resumed)" : ""
        StandardError.write("Saved \(ProgressBar.bytes(Double(Self.size(of: self.file)))) to \(LocalPath.shown(self.file))\(resumed)\n")
    }

    /// What the library continues: with `--continue`, the file's bytes and the validator of its
    /// record; otherwise the whole body, into the same file. Without a record the file is
    /// continued by `Range` alone, as `curl -C -` does. A record of another URL stops the run,
    /// whatever validator it holds: an entity tag is the server's word for one resource, and
    /// another URL's server may give the same tag to other bytes (issue 30). So does a record
    /// that cannot be read (one a newer Lupine wrote, a damaged one): it may be another URL's.
    /// Without a record, the file is continued by `Range` alone.
    private func resumeData() throws -> ResumeData {
        let length = self.continuing ? Self.size(of: self.file) : 0
        var resumeData = ResumeData(url: self.request.url, bytesReceived: length, temporaryFileURL: self.file)
        guard length > 0 else { return resumeData }
        let record = ResumeRecord.location(of: self.file)
        if let saved = ResumeRecord.read(for: self.file) {
            resumeData.entityTag = saved.entityTag
            resumeData.lastModified = saved.lastModified
            if !saved.belongs(to: self.request.url) {
                let origin = (saved.originalURL ?? saved.url).absoluteString
                throw HTTPExchange.fail(
                    "\(LocalPath.shown(self.file)) holds the start of \(TerminalText.sanitized(origin)); continue it from that URL, "
                        + "or download without --continue to replace it",
                    code: 1
                )
            }
        } else if ResumeRecord.exists(for: self.file) {
            // Unread, it could not say the bytes are another URL's: stop rather than mix them.
            throw HTTPExchange.fail(
                "\(LocalPath.shown(record)) is not a resume record Lupine can read, so nothing says \(LocalPath.shown(self.file)) holds the start of this URL; "
                    + "remove the record to continue by Range alone, or download without --continue to replace the file",
                code: 1
            )
        }
        return resumeData
    }

    /// When the final response head arrives: shows it with `-v` and notes whether a body that
    /// `--continue` could resume is coming into the file. Bytes continued by `Range` alone
    /// (`continuing` has no validator) get no whole body, as `curl -C -` refuses it: nothing says
    /// they are stale, and the new body would replace them (its head goes to `refusal`, after
    /// any `416` that came first).
    ///
    /// The record changes with the first bytes of a 2xx body, once the file has been cut to what
    /// that body continues, so a record never names bytes the file does not hold, and a head
    /// followed by nothing (or by an error page) keeps the record of the bytes that are still
    /// there: a new body (`200`) drops the old record, or replaces it with its own validator; a
    /// `206` keeps the record it continues (a validator it contradicts makes the library start
    /// over), and gives its validator to bytes that had none. A record that cannot be replaced is
    /// removed: it would vouch for bytes it no longer describes.
    private func watchTheHead(resumableBody: NIOLockedValueBox<Bool>, refusal: NIOLockedValueBox<ContinueRefusal>, continuing: ResumeData) {
        let (url, file, output) = (self.request.url, self.file, self.output)
        let unchecked = continuing.bytesReceived > 0 && continuing.entityTag == nil && continuing.lastModified == nil
        let pending = NIOLockedValueBox<(record: ResumeData?, dropsOld: Bool)?>(nil)
        self.manager.hooks.didReceiveResponse = { _, head in
            try? output.show(head)
            pending.withLockedValue { $0 = nil }
            if unchecked && head.statusCode == 416 {
                refusal.withLockedValue { $0.rangeRefusal = head }
            }
            guard (200..<300).contains(head.statusCode) else { return .allow }
            if unchecked && head.statusCode != 206 {
                refusal.withLockedValue { $0.wholeBody = head }
                return .cancel
            }
            // Only a body a range can continue is worth --continue.
            resumableBody.withLockedValue { $0 = ResumeData.isResumable(head) }
            let record = ResumeData(url: url, response: head, bytesReceived: 0, temporaryFileURL: file)
            let validated = record.entityTag != nil || record.lastModified != nil
            if head.statusCode != 206 {
                pending.withLockedValue { $0 = (validated ? record : nil, true) }
            } else if unchecked && validated {
                pending.withLockedValue { $0 = (record, false) }
            }
            return .allow
        }
        self.manager.hooks.didReceiveData = { _, _ in
            let taken = pending.withLockedValue { change in
                defer { change = nil }
                return change
            }
            guard let taken else { return }
            if let record = taken.record {
                if !ResumeRecord.write(record, for: file) {
                    ResumeRecord.remove(for: file)
                    StandardError.write("lupine: warning: could not save \(LocalPath.shown(ResumeRecord.location(of: file))); --continue would resume without checking that the file is unchanged\n")
                }
            } else if taken.dropsOld {
                ResumeRecord.remove(for: file)
            }
        }
    }

    /// Creates the file, empty, readable as the user's umask allows.
    private func create() throws {
        let descriptor = open(self.file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666)
        guard descriptor >= 0 else {
            throw HTTPExchange.fail("cannot create \(LocalPath.shown(self.file)): \(String(cString: strerror(errno)))", code: 1)
        }
        close(descriptor)
    }

    /// The exit for `error`, after removing the file when this run created it and nothing came.
    /// `--continue` is suggested only when a body a range can continue had started to come.
    private func failure(_ error: LupineError, signal: Int32?, resumableBody: Bool) -> ExitCode {
        let size = Self.size(of: self.file)
        if !self.existed, size == 0 {
            unlink(self.file.path)
            ResumeRecord.remove(for: self.file)
        }
        let resumable = "run it again with --continue to resume"
        if let signal {
            let name = TerminationSignal.name(of: signal)
            let message = resumableBody && size > 0 ? "download stopped by \(name) after \(size) bytes; \(resumable)" : "download stopped by \(name)"
            return HTTPExchange.fail(message, code: TerminationSignal.exitStatus(for: signal))
        }
        switch error {
        case .downloadFailed(.interrupted(_, .transport(.decompressionLimitExceeded))), .transport(.decompressionLimitExceeded):
            // Continuing would inflate the same body into the same limit.
            let underlying = if case .downloadFailed(.interrupted(_, let inner)) = error { inner } else { error }
            return HTTPExchange.fail(underlying.description, code: 1)
        case .downloadFailed(.interrupted(_, let underlying)):
            return HTTPExchange.fail("download interrupted after \(size) bytes (\(underlying.description)); \(resumable)", code: HTTPExchange.exitCode(for: underlying))
        case .transport where resumableBody && size > 0:
            return HTTPExchange.fail("download interrupted after \(size) bytes (\(error.description)); \(resumable)", code: HTTPExchange.exitCode(for: error))
        default:
            return HTTPExchange.fail(error.description, code: HTTPExchange.exitCode(for: error))
        }
    }

    /// The length of the file at `url` (0 when there is none).
    static func size(of url: URL) -> Int {
        var info = stat()
        return stat(url.path, &info) == 0 ? Int(info.st_size) : 0
    }
}
