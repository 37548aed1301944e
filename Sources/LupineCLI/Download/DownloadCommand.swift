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
/// interrupted download leaves its bytes in FILE; `--continue` asks for the rest.
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
        let partialLength = self.resume ? (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int : nil
        let completion = try await Self.download(request, to: file, continuingFrom: partialLength ?? 0, with: manager, progress: bar)
        bar?.finish()
        if let error = completion.error {
            throw Self.failure(error, file: file)
        }
        let length = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int ?? 0
        let resumed = completion.response?.statusCode == 206 ? " (resumed)" : ""
        FileHandle.standardError.write(Data("Saved \(ProgressBar.bytes(Double(length))) to \(file.path)\(resumed)\n".utf8))
    }

    /// Runs the download; with `partialLength` bytes already in `file`, only the rest is asked for.
    private static func download(
        _ request: Request,
        to file: URL,
        continuingFrom partialLength: Int,
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
                if partialLength > 0 {
                    // The user's own partial file: no validator is known, so only Range is sent.
                    let resumeData = ResumeData(url: request.url, bytesReceived: partialLength, temporaryFileURL: file)
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
        let message = "download interrupted after \(resumeData.bytesReceived) bytes (\(underlying.description)); run it again with --continue to resume"
        return HTTPExchange.fail(message, code: HTTPExchange.exitCode(for: underlying))
    }

    /// The URL's last path component, or `index.html` for a URL without one.
    static func defaultFileName(for url: URL) -> String {
        let last = url.lastPathComponent
        return last.isEmpty || last == "/" ? "index.html" : last
    }
}
