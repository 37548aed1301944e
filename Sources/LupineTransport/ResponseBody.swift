import NIOCore

/// A response body as an `AsyncSequence` of buffers with backpressure: while the consumer does not
/// ask for the next buffer, the connection stops reading from its socket.
///
/// The sequence ends normally only when the whole body has arrived; a connection closed early, a
/// timeout or a cancellation ends it with a ``TransportError``, never with a silently short body.
/// Abandoning iteration cancels the request and closes its connection.
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer
    typealias Producer = NIOThrowingAsyncSequenceProducer<
        ByteBuffer, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, ResponseBodyDelegate
    >

    /// A body still arriving, through a producer with backpressure; or one that had ended, whole
    /// or with an error, before its head was handed over (most small bodies arrive in the read
    /// that brings their head), which costs no producer at all.
    enum Storage: Sendable {
        case streamed(Producer)
        case arrived([ByteBuffer], error: (any Error)?)
        case stream(AsyncThrowingStream<ByteBuffer, any Error>)
    }

    let storage: Storage

    init(producer: Producer) {
        self.storage = .streamed(producer)
    }

    /// A body that had arrived (`error` when it ended with one) before its head was handed over.
    init(arrived buffers: [ByteBuffer], error: (any Error)?) {
        self.storage = .arrived(buffers, error: error)
    }

    /// A body that is already in memory, for a ``Transport`` that is not a network connection
    /// (a cache, recorded responses, a test double): it yields `buffers` in order, then ends.
    public init(_ buffers: [ByteBuffer]) {
        self.storage = .arrived(buffers, error: nil)
    }

    /// A body produced as it is asked for, for a ``Transport`` that is not a network connection
    /// (a proxy of another client, a test double that stalls or fails partway): it yields what
    /// `stream` yields, and ends as it ends.
    public init(_ stream: AsyncThrowingStream<ByteBuffer, any Error>) {
        self.storage = .stream(stream)
    }

    /// Iterates the body's buffers.
    public struct AsyncIterator: AsyncIteratorProtocol {
        enum Base {
            case streamed(Producer.AsyncIterator)
            case arrived(IndexingIterator<[ByteBuffer]>, error: (any Error)?)
            case stream(AsyncThrowingStream<ByteBuffer, any Error>.AsyncIterator)
        }

        var base: Base

        public mutating func next() async throws -> ByteBuffer? {
            switch self.base {
            case .streamed(let iterator):
                do {
                    let chunk = try await iterator.next()
                    self.base = .streamed(iterator)
                    if let chunk {
                        return chunk
                    }
                } catch is CancellationError {
                    throw TransportError.cancelled
                }
            case .arrived(var iterator, let error):
                if let chunk = iterator.next() {
                    self.base = .arrived(iterator, error: error)
                    return chunk
                }
                if let error {
                    self.base = .arrived(iterator, error: nil)
                    throw error
                }
            case .stream(var iterator):
                let chunk = try await iterator.next()
                self.base = .stream(iterator)
                if let chunk {
                    return chunk
                }
            }
            if Task.isCancelled {
                throw TransportError.cancelled
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        switch self.storage {
        case .streamed(let producer):
            return AsyncIterator(base: .streamed(producer.makeAsyncIterator()))
        case .arrived(let buffers, let error):
            return AsyncIterator(base: .arrived(buffers.makeIterator(), error: error))
        case .stream(let stream):
            return AsyncIterator(base: .stream(stream.makeAsyncIterator()))
        }
    }

    /// Reads the whole body into one buffer, failing when it exceeds `maxBytes`.
    public func collect(upTo maxBytes: Int) async throws -> ByteBuffer {
        var collected = ByteBuffer()
        for try await var chunk in self {
            guard collected.readableBytes + chunk.readableBytes <= maxBytes else {
                throw ResponseBodyTooLargeError(limit: maxBytes)
            }
            collected.writeBuffer(&chunk)
        }
        return collected
    }
}

/// ``ResponseBody/collect(upTo:)`` met more bytes than its limit.
public struct ResponseBodyTooLargeError: Error, Sendable, Equatable {
    /// The limit that was exceeded.
    public let limit: Int
}

/// Connects the body producer to the connection: the producer's calls for more demand and its
/// termination, which ``ResponseBodyFeed`` passes on only when they change something there
/// (reads held back, a body not yet ended).
final class ResponseBodyDelegate: NIOAsyncSequenceProducerDelegate {
    private let onProduceMore: @Sendable () -> Void
    private let onTerminate: @Sendable () -> Void

    init(onProduceMore: @escaping @Sendable () -> Void, onTerminate: @escaping @Sendable () -> Void) {
        self.onProduceMore = onProduceMore
        self.onTerminate = onTerminate
    }

    func produceMore() { self.onProduceMore() }

    func didTerminate() { self.onTerminate() }
}
