import NIOCore
import NIOHTTP1

/// Streaming a request body: each chunk is written once the channel is writable (so a slow
/// server slows the producer instead of filling memory), counted against the declared length, and
/// reported as bytes the socket took.
extension HTTPClientRequestHandler {

    /// Writes one body chunk; the returned future completes when the channel can take more.
    func writeBodyChunk(_ chunk: ByteBuffer) -> EventLoopFuture<Void> {
        guard let context else { return self.failedFuture() }
        guard case .executing(let execution) = self.state,
            case .sendingBody(let declared, let sent) = execution.requestPhase
        else {
            return self.failedFuture()
        }
        let total = sent + chunk.readableBytes
        if let declared, total > declared {
            self.fail(.requestBodyLengthMismatch(declared: declared, produced: total))
            return self.failedFuture()
        }
        execution.requestPhase = .sendingBody(declaredLength: declared, sent: total)
        self.writeBody(chunk, of: execution.request, context: context)
        context.flush()
        if context.channel.isWritable {
            return context.eventLoop.makeSucceededVoidFuture()
        }
        let waiter = context.eventLoop.makePromise(of: Void.self)
        execution.writabilityWaiter = waiter
        return waiter.futureResult
    }

    /// Writes body bytes. They count as sent (in the metrics, and for the request's progress
    /// closure) once the socket has taken them, not when they are queued.
    func writeBody(_ bytes: ByteBuffer, of request: PreparedRequest, context: ChannelHandlerContext) {
        let count = bytes.readableBytes
        let written = context.eventLoop.makePromise(of: Void.self)
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

    /// Ends the streamed body, checking it produced its declared length.
    func finishBody() -> EventLoopFuture<Void> {
        guard let context else { return self.failedFuture() }
        guard case .executing(let execution) = self.state,
            case .sendingBody(let declared, let sent) = execution.requestPhase
        else {
            return self.failedFuture()
        }
        if let declared, sent != declared {
            self.fail(.requestBodyLengthMismatch(declared: declared, produced: sent))
            return self.failedFuture()
        }
        self.writeEnd(execution, context: context)
        return context.eventLoop.makeSucceededVoidFuture()
    }

    /// The body source of the request identified by `token` failed; that request fails with it.
    func failBody(_ error: any Error, token: MetricsRecorder) {
        guard self.isRunning(token), case .executing(let execution) = self.state,
            case .sendingBody = execution.requestPhase
        else { return }
        switch error {
        case let error as TransportError:
            self.fail(error)
        case is CancellationError:
            self.fail(.cancelled)
        default:
            self.fail(.requestBodyFailed(underlying: error))
        }
    }

    /// Cancels the request identified by `token` if it is still the one in flight.
    func cancel(token: MetricsRecorder) {
        guard self.isRunning(token) else { return }
        self.fail(.cancelled)
    }

    /// Whether the request in flight is the one whose metrics recorder is `token`. Asynchronous
    /// cancels and failures carry it so they never hit a later request on a reused connection.
    func isRunning(_ token: MetricsRecorder) -> Bool {
        guard case .executing(let execution) = self.state else { return false }
        return execution.request.metrics === token
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, case .executing(let execution) = self.state,
            let waiter = execution.writabilityWaiter
        {
            execution.writabilityWaiter = nil
            execution.lastActivity = .now()
            waiter.succeed()
        }
        context.fireChannelWritabilityChanged()
    }

    func writeEnd(_ execution: Execution, context: ChannelHandlerContext) {
        execution.requestPhase = .sent
        let metrics = execution.request.metrics
        let endWritten = context.eventLoop.makePromise(of: Void.self)
        endWritten.futureResult.whenSuccess { metrics.mark(\.requestBodySent) }
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: endWritten)
        if case .complete = execution.responsePhase {
            self.finish(execution, reusable: execution.keepAlive)
        }
    }

    func failedFuture() -> EventLoopFuture<Void> {
        if case .closed(let error) = self.state {
            return self.eventLoop.makeFailedFuture(error)
        }
        return self.eventLoop.makeFailedFuture(TransportError.cancelled)
    }
}
