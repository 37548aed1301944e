import NIOCore
import NIOPosix

/// A request body read from a file in chunks. A regular file is sent with the length it had when
/// it was opened, and checked against it; a file that cannot tell its length (a FIFO, a device,
/// a `/proc` file) is read to its end and sent with no length, chunked.
package struct FileBody: Sendable {
    package let path: String
    package let chunkSize: Int

    package init(path: String, chunkSize: Int) {
        self.path = path
        self.chunkSize = chunkSize
    }

    /// Opens the file and calls `body` with its length (`nil` when unknown) and a producer that
    /// streams its contents. A missing or unreadable file, or a directory, fails here with
    /// ``TransportError/requestBodyFailed(underlying:)`` and a ``RequestBodyFileError``, before
    /// anything is sent.
    ///
    /// The file stays open while the producer is held, past `body`'s return: an upload that goes
    /// on after its answer has been handed over still reads it. It closes once the producer is
    /// released.
    package func withOpenFile<Result>(
        _ body: (_ length: Int?, _ produce: @escaping @Sendable (RequestBodyWriter) async throws -> Void) async throws -> Result
    ) async throws -> Result {
        let path = self.path
        let kind: FileBodyKind
        do {
            kind = try await NIOThreadPool.singleton.runIfActive { try FileBodyKind.of(path: path) }
        } catch {
            throw TransportError.requestBodyFailed(underlying: error)
        }
        switch kind {
        case .sized:
            return try await self.withRegularFile(body)
        case .unsized(let isFIFO):
            let reader: SequentialFileReader
            do {
                reader = try await SequentialFileReader.open(path: path, isFIFO: isFIFO)
            } catch {
                throw TransportError.requestBodyFailed(underlying: self.fileError(error, opening: true))
            }
            let chunkSize = self.chunkSize
            return try await body(nil) { writer in
                while let chunk = try await self.readingFile({ try await reader.nextChunk(maximumLength: chunkSize) }) {
                    try await writer.write(chunk)
                }
            }
        }
    }

    private func withRegularFile<Result>(
        _ body: (_ length: Int?, _ produce: @escaping @Sendable (RequestBodyWriter) async throws -> Void) async throws -> Result
    ) async throws -> Result {
        let fileIO = NonBlockingFileIO(threadPool: .singleton)
        let path = self.path
        let file: ClosingFileHandle
        let length: Int
        do {
            file = ClosingFileHandle(try await NIOThreadPool.singleton.runIfActive { try NIOFileHandle(_deprecatedPath: path) })
            length = Int(try await fileIO.readFileSize(fileHandle: file.handle))
        } catch {
            throw TransportError.requestBodyFailed(underlying: self.fileError(error, opening: true))
        }
        let chunkSize = self.chunkSize
        return try await body(length) { writer in
            let handle = file.handle
            var offset = 0
            while offset < length {
                let chunk = try await self.readingFile {
                    try await fileIO.read(
                        fileHandle: handle,
                        fromOffset: Int64(offset),
                        byteCount: min(chunkSize, length - offset),
                        allocator: ByteBufferAllocator()
                    )
                }
                guard chunk.readableBytes > 0 else {
                    throw TransportError.requestBodyLengthMismatch(declared: length, produced: offset)
                }
                offset += chunk.readableBytes
                try await writer.write(chunk)
            }
            let finalLength = Int(try await self.readingFile { try await fileIO.readFileSize(fileHandle: handle) })
            guard finalLength == length else {
                throw TransportError.requestBodyLengthMismatch(declared: length, produced: finalLength)
            }
        }
    }

    /// Runs `read`, turning a system error into a ``RequestBodyFileError`` that names the file.
    private func readingFile<Value>(_ read: () async throws -> Value) async throws -> Value {
        do {
            return try await read()
        } catch let error as IOError {
            throw self.fileError(error, opening: false)
        }
    }

    private func fileError(_ error: any Error, opening: Bool) -> any Error {
        guard let error = error as? IOError else { return error }
        let reason = TransportErrorWords.systemMessage(error.errnoCode)
        return opening ? RequestBodyFileError.notReadable(path: self.path, reason: reason) : RequestBodyFileError.readFailed(path: self.path, reason: reason)
    }
}

/// A file handle that closes when the last reference to it goes: the producers of a file body
/// hold it, so the file is open exactly as long as something may still read it.
package final class ClosingFileHandle: Sendable {
    package let handle: NIOFileHandle

    package init(_ handle: NIOFileHandle) {
        self.handle = handle
    }

    deinit {
        try? self.handle.close()
    }
}
