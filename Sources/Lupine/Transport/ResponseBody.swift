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

    let producer: Producer

    init(producer: Producer) {
        self.producer = producer
    }

    /// A body that is already in memory, for a ``Transport`` that is not a network connection
    /// (a cache, recorded responses, a test double): it yields `buffers` in order, then ends.
    public init(_ buffers: [ByteBuffer]) {
        let sequence = Producer.makeSequence(
            elementType: ByteBuffer.self,
            failureType: (any Error).self,
            backPressureStrategy: .init(lowWatermark: 4, highWatermark: 16),
            finishOnDeinit: false,
            delegate: ResponseBodyDelegate(onProduceMore: {}, onTerminate: {})
        )
        _ = sequence.source.yield(contentsOf: buffers)
        sequence.source.finish()
        self.producer = sequence.sequence
    }

    /// Iterates the body's buffers.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Producer.AsyncIterator

        public mutating func next() async throws -> ByteBuffer? {
            do {
                if let chunk = try await self.base.next() {
                    return chunk
                }
            } catch is CancellationError {
                throw TransportError.cancelled
            }
            if Task.isCancelled {
                throw TransportError.cancelled
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.producer.makeAsyncIterator())
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
