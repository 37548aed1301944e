import NIOCore
import OpenAPIRuntime

/// A response body as the generated client reads it: the chunks of a ``ResponseStream``, each
/// read from the socket only when asked for. It can be iterated once (the `HTTPBody` made of it
/// says so).
///
/// When the body is dropped unread, or only partly read, the Lupine task is cancelled, so the
/// connection is not held for a body nobody will read.
struct ResponseBodySequence: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    private let owner: Owner

    init(_ stream: ResponseStream) {
        self.owner = Owner(stream: stream)
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(owner: self.owner)
    }

    /// Reads the next chunk of the body.
    struct Iterator: AsyncIteratorProtocol {
        fileprivate let owner: Owner

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            guard let buffer = try await self.owner.stream.next() else {
                return nil
            }
            return HTTPBody.ByteChunk(buffer.readableBytesView)
        }
    }

    /// Holds the stream for as long as the body or one of its iterators lives, and cancels it
    /// once neither does. (Cancelling a stream that ended does nothing.)
    fileprivate final class Owner: Sendable {
        let stream: ResponseStream

        init(stream: ResponseStream) {
            self.stream = stream
        }

        deinit {
            self.stream.cancel()
        }
    }
}
