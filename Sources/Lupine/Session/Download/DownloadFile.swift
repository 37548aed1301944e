import Foundation
import NIOCore
import NIOPosix

/// The temporary file a download's body is written to, chunk by chunk, with NIO's non-blocking
/// file I/O, so no thread blocks on the disk and no body sits in memory.
///
/// Used by one download's runner at a time; it is a class so that the body-reading closure and
/// the code around it share one write position.
final class DownloadFile {
    let url: URL
    private let handle: NIOFileHandle
    private let fileIO = NonBlockingFileIO(threadPool: .singleton)
    /// Bytes in the file, which is also where the next chunk goes.
    private(set) var length: Int

    private init(url: URL, handle: NIOFileHandle, length: Int) {
        self.url = url
        self.handle = handle
        self.length = length
    }

    /// A new, empty file in `directory`.
    static func create(in directory: URL) async throws(LupineError) -> DownloadFile {
        let url = directory.appending(path: "lupine-download-\(UUID().uuidString).tmp")
        let handle = try await Self.open(url, flags: O_CREAT | O_EXCL)
        return DownloadFile(url: url, handle: handle, length: 0)
    }

    /// The file of `resumeData`, cut back to the bytes they account for.
    static func reopen(_ resumeData: ResumeData) async throws(LupineError) -> DownloadFile {
        let url = resumeData.temporaryFileURL
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int
        guard let size, size >= resumeData.bytesReceived else {
            throw .downloadFailed(.temporaryFileMissing(url))
        }
        let file = DownloadFile(url: url, handle: try await Self.open(url, flags: 0), length: size)
        try file.truncate(to: resumeData.bytesReceived)
        return file
    }

    /// Appends `chunk`; a full disk or a file size limit is a ``LupineError/DownloadFailureReason/fileWriteFailed(_:reason:)``.
    func append(_ chunk: ByteBuffer) async throws(LupineError) {
        do {
            try await self.fileIO.write(fileHandle: self.handle, toOffset: Int64(self.length), buffer: chunk)
        } catch {
            throw .downloadFailed(.fileWriteFailed(self.url, reason: String(describing: error)))
        }
        self.length += chunk.readableBytes
    }

    /// Cuts the file to its first `length` bytes (to nothing, for a download that restarts).
    func truncate(to length: Int = 0) throws(LupineError) {
        do {
            try self.handle.withUnsafeFileDescriptor { descriptor in
                guard ftruncate(descriptor, off_t(length)) == 0 else {
                    throw IOError(errnoCode: errno, reason: "ftruncate")
                }
            }
        } catch {
            throw .downloadFailed(.fileWriteFailed(self.url, reason: String(describing: error)))
        }
        self.length = length
    }

    /// Closes the file, keeping it.
    func close() {
        try? self.handle.close()
    }

    /// Closes and deletes the file.
    func remove() {
        self.close()
        try? FileManager.default.removeItem(at: self.url)
    }

    private static func open(_ url: URL, flags: CInt) async throws(LupineError) -> NIOFileHandle {
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                try NIOFileHandle(
                    _deprecatedPath: url.path,
                    mode: .write,
                    flags: .posix(flags: flags, mode: S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH)
                )
            }
        } catch {
            throw .downloadFailed(.fileWriteFailed(url, reason: String(describing: error)))
        }
    }
}
