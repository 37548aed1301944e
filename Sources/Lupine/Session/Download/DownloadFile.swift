import Foundation
import NIOCore
import NIOPosix

/// The temporary file a download's body is written to with NIO's non-blocking file I/O, so no
/// thread blocks on the disk. Each chunk is written as it arrives, without copying, while the
/// next one is received: one write runs at a time (a file handle takes one operation at once),
/// so the disk and the network overlap and at most one chunk waits in memory.
///
/// Used by one download's runner at a time; it is a class so that the body-reading closure and
/// the code around it share one write position.
final class DownloadFile {
    let url: URL
    private let handle: NIOFileHandle
    private let fileIO = NonBlockingFileIO(threadPool: .singleton)
    private let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
    /// Bytes handed to the file: written, or in the write still running. Where the next chunk goes.
    private(set) var length: Int
    /// The write still running, if any.
    private var inFlight: EventLoopFuture<Void>?

    private init(url: URL, handle: NIOFileHandle, length: Int) {
        self.url = url
        self.handle = handle
        self.length = length
    }

    /// How the files this type makes are named: `lupine-download-UUID.tmp`.
    static let namePrefix = "lupine-download-"
    static let nameExtension = "tmp"

    /// A new, empty file in `directory`.
    static nonisolated(nonsending) func create(in directory: URL) async throws(LupineError) -> DownloadFile {
        let url = directory.appending(path: "\(Self.namePrefix)\(UUID().uuidString).\(Self.nameExtension)")
        let handle = try await Self.open(url, flags: O_CREAT | O_EXCL)
        return DownloadFile(url: url, handle: handle, length: 0)
    }

    /// The file of `resumeData`, to continue after the bytes they account for. Nothing in it
    /// changes until the caller truncates or appends: an answer that brings no body (an error
    /// page, a refused connection) leaves the file as it was.
    static func reopen(_ resumeData: ResumeData) async throws(LupineError) -> DownloadFile {
        let url = resumeData.temporaryFileURL
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
        // Only a regular file: opening a FIFO for writing would wait for a reader, uncancellably.
        guard let size = attributes?[.size] as? Int, attributes?[.type] as? FileAttributeType == .typeRegular,
            size >= resumeData.bytesReceived
        else {
            throw .downloadFailed(.temporaryFileMissing(url))
        }
        return DownloadFile(url: url, handle: try await Self.open(url, flags: 0), length: resumeData.bytesReceived)
    }

    /// Starts writing `chunk` at the end of the file once the previous write is done; a full
    /// disk or a file size limit is a ``LupineError/DownloadFailureReason/fileWriteFailed(_:reason:)``
    /// (reported by this call or the next).
    nonisolated(nonsending) func append(_ chunk: ByteBuffer) async throws(LupineError) {
        try await self.flush()
        self.inFlight = self.fileIO.write(fileHandle: self.handle, toOffset: Int64(self.length), buffer: chunk, eventLoop: self.eventLoop)
        self.length += chunk.readableBytes
    }

    /// Waits for the write still running; its failure is reported here.
    nonisolated(nonsending) func flush() async throws(LupineError) {
        guard let inFlight = self.inFlight else { return }
        self.inFlight = nil
        do {
            try await inFlight.get()
        } catch {
            throw .downloadFailed(.fileWriteFailed(self.url, reason: TransportErrorWords.describe(error)))
        }
    }

    /// Cuts the file to its first `length` bytes (to nothing, for a download that restarts).
    nonisolated(nonsending) func truncate(to length: Int = 0) async throws(LupineError) {
        try await self.flush()
        do {
            try self.handle.withUnsafeFileDescriptor { descriptor in
                guard ftruncate(descriptor, off_t(length)) == 0 else {
                    throw IOError(errnoCode: errno, reason: "ftruncate")
                }
            }
        } catch {
            throw .downloadFailed(.fileWriteFailed(self.url, reason: TransportErrorWords.describe(error)))
        }
        self.length = length
    }

    /// Closes the file, keeping it, once no write is running.
    nonisolated(nonsending) func close() async {
        try? await self.flush()
        try? self.handle.close()
    }

    /// Closes and deletes the file.
    nonisolated(nonsending) func remove() async {
        await self.close()
        try? FileManager.default.removeItem(at: self.url)
    }

    private static nonisolated(nonsending) func open(_ url: URL, flags: CInt) async throws(LupineError) -> NIOFileHandle {
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                try NIOFileHandle(
                    _deprecatedPath: url.path,
                    mode: .write,
                    flags: .posix(flags: flags, mode: S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH)
                )
            }
        } catch {
            throw .downloadFailed(.fileWriteFailed(url, reason: TransportErrorWords.describe(error)))
        }
    }
}
