import NIOCore
import NIOPosix

/// A request body read from a file in chunks, checked against the size the file had when it was opened.
struct FileBody: Sendable {
    let path: String
    let chunkSize: Int

    /// Opens the file and calls `body` with its length and a producer that streams its contents.
    /// A missing or unreadable file fails here, before anything is sent.
    func withOpenFile<Result>(
        _ body: (_ length: Int, _ produce: @escaping @Sendable (RequestBodyWriter) async throws -> Void) async throws -> Result
    ) async throws -> Result {
        let fileIO = NonBlockingFileIO(threadPool: .singleton)
        let handle: NIOFileHandle
        do {
            handle = try await NIOThreadPool.singleton.runIfActive {
                try NIOFileHandle(_deprecatedPath: self.path)
            }
        } catch {
            throw TransportError.requestBodyFailed(underlying: error)
        }
        defer { try? handle.close() }
        let length: Int
        do {
            length = Int(try await fileIO.readFileSize(fileHandle: handle))
        } catch {
            throw TransportError.requestBodyFailed(underlying: error)
        }
        let chunkSize = self.chunkSize
        return try await body(length) { writer in
            var offset = 0
            while offset < length {
                let chunk = try await fileIO.read(
                    fileHandle: handle,
                    fromOffset: Int64(offset),
                    byteCount: min(chunkSize, length - offset),
                    allocator: ByteBufferAllocator()
                )
                guard chunk.readableBytes > 0 else {
                    throw TransportError.requestBodyLengthMismatch(declared: length, produced: offset)
                }
                offset += chunk.readableBytes
                try await writer.write(chunk)
            }
            let finalLength = Int(try await fileIO.readFileSize(fileHandle: handle))
            guard finalLength == length else {
                throw TransportError.requestBodyLengthMismatch(declared: length, produced: finalLength)
            }
        }
    }
}
