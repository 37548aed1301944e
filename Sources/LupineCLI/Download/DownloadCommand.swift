import ArgumentParser
import Foundation
import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `lupine download URL [-o FILE] [--continue]`: the body streams to FILE (by default the
/// URL's last path component), with a progress bar on stderr when stderr is a terminal. An
/// interrupted download leaves its bytes in FILE and its resume data (the validator, for
/// `If-Range`) in `FILE.lupine-resume`; `--continue` asks for the rest, and without resume data
/// continues a partial FILE with `Range` alone, as `curl -C -` does.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a URL to a file; --continue resumes a partial file."
    )

    @OptionGroup var request: RequestOptions

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Where to save the body.", valueName: "file"))
    var output: String?

    @Flag(name: .customLong("continue"), help: "Resume a partial FILE from where it stops.")
    var resume = false

    func run() async throws {
        let (request, manager) = try HTTPExchange(method: .GET, options: self.request).prepare()
        let file = URL(fileURLWithPath: self.output ?? Self.defaultFileName(for: request.url))
        manager.downloadDirectory = file.deletingLastPathComponent()
        let bar = isatty(STDERR_FILENO) == 1 ? ProgressBar() : nil
        let completion = try await Self.download(request, to: file, resumeData: self.resume ? Self.resumeData(for: file, of: request) : nil, with: manager, progress: bar)
        bar?.finish()
        if let error = completion.error {
            throw Self.failure(error, file: file)
        }
        try? FileManager.default.removeItem(at: Self.sidecar(of: file))
        let length = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int ?? 0
        let resumed = completion.response?.statusCode == 206 ? " (resumed)" : ""
        FileHandle.standardError.write(Data("Saved \(ProgressBar.bytes(Double(length))) to \(file.path)\(resumed)\n".utf8))
    }

    /// Where the resume data of an interrupted download of `file` are kept.
    static func sidecar(of file: URL) -> URL {
        file.deletingLastPathComponent().appending(path: file.lastPathComponent + ".lupine-resume")
    }

    /// What continues `file`: its sidecar's resume data when they are for this URL and file
    /// length, else `Range` alone from the file's length; `nil` when there is nothing to continue.
    private static func resumeData(for file: URL, of request: Request) -> ResumeData? {
        guard let length = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int, length > 0 else {
            return nil
        }
        if let saved = try? Data(contentsOf: Self.sidecar(of: file)),
            var resumeData = try? ResumeData(encoded: Array(saved)),
            resumeData.belongs(to: request.url), resumeData.bytesReceived == length
        {
            resumeData.temporaryFileURL = file
            return resumeData
        }
        return ResumeData(url: request.url, bytesReceived: length, temporaryFileURL: file)
    }

    /// Runs the download; with `resumeData`, only the rest of the partial file is asked for.
    private static func download(
        _ request: Request,
        to file: URL,
        resumeData: ResumeData?,
        with manager: SessionManager,
        progress bar: ProgressBar?
    ) async throws -> TaskCompletion {
        let destination: DownloadDestination = { _, _ in (file, [.removePreviousFile, .createIntermediateDirectories]) }
        var progress: (@Sendable (Progress) -> Void)?
        if let bar {
            progress = { bar.update($0) }
        }
        return try await withCheckedThrowingContinuation { continuation in
            do {
                let task: DownloadTask
                if let resumeData {
                    task = try manager.downloadTask(with: request, resumeData: resumeData, progress: progress, destination: destination) {
                        continuation.resume(returning: $0)
                    }
                } else {
                    task = manager.downloadTask(with: request, progress: progress, destination: destination) {
                        continuation.resume(returning: $0)
                    }
                }
                task.resume()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// The exit for `error`. An interrupted download's bytes are moved to `file` first, so that
    /// `--continue` finds them.
    private static func failure(_ error: LupineError, file: URL) -> ExitCode {
        guard case .downloadFailed(.interrupted(let encoded, let underlying)) = error,
            let resumeData = try? ResumeData(encoded: encoded)
        else {
            return HTTPExchange.fail(error.description, code: HTTPExchange.exitCode(for: error))
        }
        if resumeData.temporaryFileURL.standardizedFileURL != file.standardizedFileURL {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.moveItem(at: resumeData.temporaryFileURL, to: file)
        }
        var saved = resumeData
        saved.temporaryFileURL = file
        try? Data(saved.encoded()).write(to: Self.sidecar(of: file))
        let message = "download interrupted after \(resumeData.bytesReceived) bytes (\(underlying.description)); run it again with --continue to resume"
        return HTTPExchange.fail(message, code: HTTPExchange.exitCode(for: underlying))
    }

    /// The URL's last path component, or `index.html` for a URL without one.
    static func defaultFileName(for url: URL) -> String {
        let last = url.lastPathComponent
        return last.isEmpty || last == "/" ? "index.html" : last
    }
}
