import NIOCore
import NIOHTTP1

/// Streaming a request body: each chunk is written once the channel is writable (so a slow
/// server slows the producer instead of filling memory), counted against the declared length, and
/// reported as bytes the socket took. Every call names its request, so that the producer of a
/// finished request can never write into the next one on the same connection.
extension HTTPClientRequestHandler {

    /// Writes one body chunk of request `id`; the returned future completes when the channel can take more.
    func writeBodyChunk(_ chunk: ByteBuffer, of id: RequestID) -> EventLoopFuture<Void> {
        self.answerProducer(self.machine.bodyPartToWrite(id, part: chunk))
    }

    /// Ends the streamed body of request `id`, checking it produced its declared length.
    func finishBody(of id: RequestID) -> EventLoopFuture<Void> {
        self.answerProducer(self.machine.bodyEnded(id))
    }

    /// Performs `action`, taken on the body producer's behalf, and tells the producer the outcome:
    /// refused or failed, or free to go on (once the channel is writable again, when it is parked).
    private func answerProducer(_ action: HTTP1RequestStateMachine.Action) -> EventLoopFuture<Void> {
        self.perform(action)
        switch action {
        case .refuseBodyWrite(let error), .failRequest(let error):
            return self.eventLoop.makeFailedFuture(error)
        default:
            return self.exchange?.writabilityWaiter?.futureResult ?? self.eventLoop.makeSucceededVoidFuture()
        }
    }

    /// The body source of request `id` failed; that request fails with it.
    func failBody(_ error: any Error, of id: RequestID) {
        self.perform(self.machine.bodyFailed(id, error: error))
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        self.perform(self.machine.writabilityChanged(isWritable: context.channel.isWritable, now: self.eventLoop.now))
        context.fireChannelWritabilityChanged()
    }

    /// Writes body bytes. They count as sent (in the metrics, and for the request's progress
    /// closure) once the socket has taken them, not when they are queued.
    func writeBody(_ bytes: ByteBuffer, of request: PreparedRequest, context: ChannelHandlerContext) {
        let count = bytes.readableBytes
        let written = self.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenSuccess {
            var total = 0
            request.metrics.record { metrics in
                metrics.bodyBytesSent += count
                total = metrics.bodyBytesSent
            }
            request.bodyProgress?(total)
        }
        context.write(Self.wrapOutboundOut(.body(.byteBuffer(bytes))), promise: written)
    }

    /// Writes and flushes the end of the request in flight.
    func writeEnd() {
        guard let context, let metrics = self.exchange?.request.metrics else { return }
        let endWritten = self.eventLoop.makePromise(of: Void.self)
        endWritten.futureResult.whenSuccess { metrics.mark(.requestBodySent) }
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: endWritten)
    }
}
