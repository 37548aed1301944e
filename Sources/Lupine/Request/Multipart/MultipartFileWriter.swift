import Foundation
import NIOCore
import NIOPosix

/// Writes a multipart body to a file through NIO's non-blocking file I/O.
///
/// The body goes to a new file beside the destination first, then takes the destination's
/// place (see ``FilePlacement``): a failure partway leaves the destination as it was, and only a
/// regular file is ever replaced — never a directory, device or FIFO.
enum MultipartFileWriter {
    static func write(_ form: MultipartFormData, to fileURL: URL) async throws {
        let staging = fileURL.deletingLastPathComponent().appending(path: ".lupine-multipart-\(UUID().uuidString).tmp")
        do {
            try await Self.write(form, toNewFile: staging)
            _ = try FilePlacement.place(staging, at: fileURL, replacing: true)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            switch error {
            case let error as LupineError:
                throw error
            case FilePlacement.Failure.notReplaceable(let url, let reason), FilePlacement.Failure.failed(let url, let reason):
                throw LupineError.multipartEncodingFailed(.outputFileWriteFailed(url, reason: reason))
            default:
                throw LupineError.multipartEncodingFailed(.outputFileWriteFailed(fileURL, reason: error.debugReason))
            }
        }
    }

    /// Writes `form` to `fileURL`, which must not exist yet.
    private static func write(_ form: MultipartFormData, toNewFile fileURL: URL) async throws {
        let fileIO = NonBlockingFileIO(threadPool: .singleton)
        let handle = try await NIOThreadPool.singleton.runIfActive {
            try NIOFileHandle(
                _deprecatedPath: fileURL.path,
                mode: .write,
                flags: .posix(flags: O_CREAT | O_EXCL, mode: S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH)
            )
        }
        defer { try? handle.close() }
        try await form.write(
            to: RequestBodyWriter { chunk in
                try await fileIO.write(fileHandle: handle, buffer: chunk)
            })
    }
}
