import Foundation
import NIOCore
import NIOPosix

/// Writes a multipart body to a file through NIO's non-blocking file I/O.
enum MultipartFileWriter {
    static func write(_ form: MultipartFormData, to fileURL: URL) async throws {
        let fileIO = NonBlockingFileIO(threadPool: .singleton)
        let handle = try await NIOThreadPool.singleton.runIfActive {
            try NIOFileHandle(
                _deprecatedPath: fileURL.path,
                mode: .write,
                flags: .posix(flags: O_CREAT | O_TRUNC, mode: S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH)
            )
        }
        defer { try? handle.close() }
        try await form.write(to: RequestBodyWriter { chunk in
            try await fileIO.write(fileHandle: handle, buffer: chunk)
        })
    }
}
