import NIOCore
import NIOHTTP1

/// Performing the ``HTTP1RequestStateMachine``'s actions: writes, reads, timers, and finishing or
/// failing the request in flight (its promise or body stream, its metrics, the connection's reuse).
extension HTTPClientRequestHandler {
    func perform(_ action: HTTP1RequestStateMachine.Action) {
        switch action {
        case .none, .refuseRequest, .refuseBodyWrite:
            // A refusal is answered by the caller that asked (its promise or future).
            break
        case .startRequest(let head, let body, let readTimeout):
            self.startRequest(head: head, body: body, readTimeout: readTimeout)
        case .writeBodyPart(let part):
            guard let context, let exchange else { return }
            self.writeBody(part, of: exchange.request, context: context)
            context.flush()
            self.perform(self.machine.bodyPartWritten(channelIsWritable: context.channel.isWritable))
        case .parkBodyProducer:
            self.exchange?.writabilityWaiter = self.eventLoop.makePromise(of: Void.self)
        case .resumeBodyProducer:
            let waiter = self.exchange?.writabilityWaiter
            self.exchange?.writabilityWaiter = nil
            waiter?.succeed()
        case .writeRequestEnd:
            self.writeEnd()
            self.perform(self.machine.requestEndWritten())
        case .forwardHead(let head, let stopUpload):
            self.forwardHead(head, stopUpload: stopUpload)
        case .forwardBodyPart(let part, let totalReceived):
            self.forwardBodyPart(part, totalReceived: totalReceived)
        case .read:
            self.context?.read()
        case .scheduleReadTimer(let delay):
            self.watchdog.watch(until: self.eventLoop.now + delay)
        case .succeedRequest(let reusable, let resumeReading):
            self.succeed(reusable: reusable, resumeReading: resumeReading)
        case .failRequest(let error):
            self.fail(error)
        case .closeConnection:
            self.context?.close(promise: nil)
        }
    }

    private func startRequest(head: HTTPRequestHead, body: PreparedRequest.Body, readTimeout: TimeAmount?) {
        guard let context, let exchange else { return }
        self.watch(exchange.request, readTimeout: readTimeout)
        let metrics = exchange.request.metrics
        let headWritten = self.eventLoop.makePromise(of: Void.self)
        headWritten.futureResult.whenSuccess { metrics.mark(.requestHeadSent) }
        context.write(Self.wrapOutboundOut(.head(head)), promise: headWritten)
        switch body {
        case .none:
            self.writeEnd()
        case .bytes(let bytes):
            self.writeBody(bytes, of: exchange.request, context: context)
            self.writeEnd()
        case .streamed:
            context.flush()
        }
    }

    private func succeed(reusable: Bool, resumeReading: Bool) {
        guard let exchange else { return }
        self.exchange = nil
        self.end(exchange)
        exchange.writabilityWaiter?.fail(TransportError.cancelled)
        exchange.writabilityWaiter = nil
        if !reusable {
            self.context?.close(promise: nil)
        }
        if resumeReading {
            self.context?.read()
        }
        self.onRequestFinished(reusable)
        // Last, so that the consumer's next request finds the connection idle, not busy.
        exchange.body?.finish()
        self.handOverHead(.ended(nil))
        exchange.ended?.deliver(())
    }

    private func fail(_ error: TransportError) {
        guard let exchange else { return }
        self.exchange = nil
        self.end(exchange)
        exchange.writabilityWaiter?.fail(error)
        exchange.writabilityWaiter = nil
        exchange.headPromise?.fail(error)
        exchange.headPromise = nil
        exchange.body?.finish(error)
        self.context?.close(promise: nil)
        self.onRequestFinished(false)
        // A head already received is the caller's, and its body ends with the error.
        self.handOverHead(.ended(error))
        exchange.ended?.deliver(())
    }

    /// Records the request's byte counts and end. The watchdog stays armed for the next request.
    private func end(_ exchange: Exchange) {
        let sent = self.counters.bytesWritten - exchange.bytesWrittenAtStart
        let received = self.counters.bytesRead - exchange.bytesReadAtStart
        exchange.request.metrics.record {
            $0.bytesSent = sent
            $0.bytesReceived = received
        }
        exchange.request.metrics.mark(.responseEnd)
    }
}

@available(*, unavailable)
extension HTTPClientRequestHandler: Sendable {
}
