import NIOCore

/// Where a request body comes from. Bodies other than `bytes` are streamed in chunks as the
/// socket accepts them, so a body of any size never sits in memory.
public struct TransportRequestBody: Sendable {
    package enum Source: Sendable {
        case bytes(ByteBuffer)
        case file(path: String, chunkSize: Int)
        case stream(length: Int?, produce: @Sendable (RequestBodyWriter) async throws -> Void)
    }

    package let source: Source

    package init(source: Source) {
        self.source = source
    }

    /// A body held in memory.
    public static func bytes(_ buffer: ByteBuffer) -> TransportRequestBody {
        TransportRequestBody(source: .bytes(buffer))
    }

    /// A body held in memory.
    public static func bytes(_ bytes: some Sequence<UInt8>) -> TransportRequestBody {
        TransportRequestBody(source: .bytes(ByteBuffer(bytes: bytes)))
    }

    /// A body read from the file at `path` in chunks of `chunkSize` bytes.
    ///
    /// A regular file is sent with its exact `Content-Length`; one that changes size while it is
    /// sent fails the request with ``TransportError/requestBodyLengthMismatch(declared:produced:)``.
    /// A file that cannot tell its length (a FIFO, a character device such as `/dev/stdin`, a
    /// `/proc` file) is read to its end and sent chunked, as curl does; such a body is never
    /// replayed. A missing or unreadable file, or a directory, fails the request before anything
    /// is sent, with ``TransportError/requestBodyFailed(underlying:)`` and a ``RequestBodyFileError``.
    public static func file(path: String, chunkSize: Int = 64 * 1024) -> TransportRequestBody {
        TransportRequestBody(source: .file(path: path, chunkSize: max(1, chunkSize)))
    }

    /// A body produced by an async sequence of buffers, sent with `Content-Length` when `length`
    /// is given and chunked otherwise. The sequence is iterated only as fast as the socket drains.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks,
        length: Int? = nil
    ) -> TransportRequestBody where Chunks.Element == ByteBuffer {
        TransportRequestBody(
            source: .stream(length: length) { writer in
                for try await chunk in chunks {
                    try await writer.write(chunk)
                }
            }
        )
    }
}

/// Hands request body chunks to a connection, suspending while the socket's send buffer is full.
public struct RequestBodyWriter: Sendable {
    let writeChunk: @Sendable (ByteBuffer) async throws -> Void

    /// A writer that hands each chunk to `writeChunk`.
    package init(writeChunk: @escaping @Sendable (ByteBuffer) async throws -> Void) {
        self.writeChunk = writeChunk
    }

    /// Sends `chunk`, returning once the connection is ready to take more.
    public func write(_ chunk: ByteBuffer) async throws {
        try await self.writeChunk(chunk)
    }
}
