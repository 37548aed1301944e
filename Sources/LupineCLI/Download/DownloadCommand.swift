import ArgumentParser
import Foundation
import Lupine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `lupine download URL [-o FILE] [--continue]`: the body is written into FILE as it arrives
/// (by default a file in the working directory named after the URL's last path segment), with a
/// progress bar on stderr when stderr is a terminal.
///
/// Nothing is removed or replaced but the regular file FILE names, and that only once the server
/// answers with a body: `-o DIR` is an error, a symbolic link is followed, a device or FIFO is
/// written into. The bytes land in FILE itself, so whatever stops the download (a cut
/// connection, Ctrl-C, SIGTERM, SIGKILL) leaves them there; the response's validator is kept in
/// `FILE.lupine-resume` from the moment the head arrives, and `--continue` asks for the rest
/// with `Range` and `If-Range` (with `Range` alone when there is no validator, as `curl -C -`).
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

    func validate() throws {
        if self.output?.isEmpty == true {
            throw ValidationError("-o needs a file name (or - for standard output).")
        }
        if self.request.printSelection != nil {
            throw ValidationError("--print does not apply to download, whose body goes to the file; -v shows the heads on stderr.")
        }
    }

    func run() async throws {
        let (request, manager, stored) = try HTTPExchange(method: .GET, options: self.request).prepare()
        defer { stored.save() }
        let output = ExchangeOutput(headsOnStandardErrorIf: self.request.verbose)
        output.showRequests(of: manager)
        output.showRedirects(of: manager)
        let target: DownloadTarget
        do {
            target = self.output == "-" ? .standardOutput : try DownloadTarget.resolve(try self.outputPath(for: request.url))
        } catch {
            throw HTTPExchange.fail(error.description, code: 1)
        }
        switch target {
        case .stream, .standardOutput:
            guard !self.resume else {
                throw HTTPExchange.fail("\(target.name) is not a regular file, so there is nothing to continue", code: 1)
            }
            try await StreamDownload(request: request, target: target, manager: manager, output: output).run()
        case .file(let file, let exists):
            try await FileDownload(request: request, file: file, existed: exists, continuing: self.resume, manager: manager, output: output).run()
        }
    }

    /// `-o`, or a file in the working directory named after the URL.
    private func outputPath(for url: URL) throws(DownloadTargetError) -> URL {
        if let output = self.output {
            return LocalPath.url(output)
        }
        guard let name = DownloadFileName.name(for: url) else {
            throw DownloadTargetError(subject: "the URL path \"\(url.path(percentEncoded: true))\"", problem: "names no file; say where to save the body with -o FILE")
        }
        let path = LocalPath.url(name)
        // A name taken from the URL stays in the working directory: a link there is not followed.
        var info = stat()
        if lstat(path.path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            throw DownloadTargetError(subject: path.path, problem: "is a symbolic link; to write through it, name it with -o")
        }
        return path
    }
}
