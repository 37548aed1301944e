import Lupine
import NIOCore
import OpenAPIRuntime

/// Reads a request's `HTTPBody` one chunk at a time, when the connection asks for the next one,
/// so the body is never read ahead of the socket. An actor because the body's iterator is not
/// `Sendable`: it stays inside, and the stream the transport reads calls in for each chunk.
actor RequestBodyReader {
    private var iterator: HTTPBody.AsyncIterator

    private init(_ body: HTTPBody) {
        self.iterator = body.makeAsyncIterator()
    }

    /// A new pass over `body`, pulled chunk by chunk. A body that can be read only once fails
    /// a second pass (a resend) with the runtime's error, which the session reports as the
    /// request body's failure.
    static func chunks(of body: HTTPBody) -> AsyncThrowingStream<ByteBuffer, any Error> {
        let reader = RequestBodyReader(body)
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }

    /// The next chunk, or `nil` at the body's end.
    private func next() async throws -> ByteBuffer? {
        // Read from a copy: an actor's property cannot be passed `inout` across a suspension.
        var iterator = self.iterator
        defer { self.iterator = iterator }
        guard let chunk = try await iterator.next(isolation: self) else {
            return nil
        }
        return ByteBuffer(bytes: chunk)
    }
}
