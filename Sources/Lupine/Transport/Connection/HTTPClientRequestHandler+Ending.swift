import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL

/// The end of a request: the idle-read and whole-request timers, and finishing or failing the
/// execution in flight (its promise or body stream, its metrics, and the connection's reuse).
extension HTTPClientRequestHandler {
    // MARK: Timers

    /// Schedules the idle check: the request fails when for `readTimeout` the server neither sent
    /// a byte nor took one of ours. Activity only moves ``Execution/lastActivity``; the timer
    /// re-schedules itself for the remainder, so a busy connection costs no timer churn. Silence
    /// that is ours (a consumer holding reads back, a body source slow to produce) does not count.
    func scheduleReadTimer(_ execution: Execution, in delay: TimeAmount?, context: ChannelHandlerContext) {
        guard let timeout = execution.request.readTimeout, let delay else { return }
        execution.readTimer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            let idle = NIODeadline.now() - execution.lastActivity
            if idle < timeout {
                self.scheduleReadTimer(execution, in: timeout - idle, context: context)
                return
            }
            var silenceIsOurs = self.readsPaused
            if case .sendingBody = execution.requestPhase, execution.writabilityWaiter == nil {
                silenceIsOurs = true
            }
            if silenceIsOurs {
                execution.lastActivity = .now()
                self.scheduleReadTimer(execution, in: timeout, context: context)
            } else {
                self.fail(.readTimeout(timeout: timeout))
            }
        }
    }

    // MARK: Ending a request

    func finish(_ execution: Execution, reusable: Bool) {
        guard case .executing(let current) = self.state, current === execution else { return }
        self.endTimers(execution)
        self.recordByteCounts(execution)
        execution.request.metrics.mark(\.responseEnd)
        execution.writabilityWaiter?.fail(TransportError.cancelled)
        execution.writabilityWaiter = nil
        if reusable {
            self.state = .idle
        } else {
            self.state = .closed(.connectionClosedBeforeResponse)
            self.context?.close(promise: nil)
        }
        self.resumeReads()
        self.onRequestFinished(reusable)
    }

    func fail(_ error: TransportError) {
        guard case .executing(let execution) = self.state else { return }
        self.state = .closed(error)
        self.endTimers(execution)
        self.recordByteCounts(execution)
        execution.request.metrics.mark(\.responseEnd)
        execution.writabilityWaiter?.fail(error)
        execution.writabilityWaiter = nil
        switch execution.responsePhase {
        case .awaitingHead(let promise):
            promise.fail(error)
        case .streamingBody(let source, _, _):
            source.finish(error)
        case .complete:
            break
        }
        execution.responsePhase = .complete
        self.readsPaused = false
        self.context?.close(promise: nil)
        self.onRequestFinished(false)
    }

    func endTimers(_ execution: Execution) {
        execution.readTimer?.cancel()
        execution.deadlineTimer?.cancel()
        execution.readTimer = nil
        execution.deadlineTimer = nil
    }

    func recordByteCounts(_ execution: Execution) {
        let sent = self.counters.bytesWritten - execution.bytesWrittenAtStart
        let received = self.counters.bytesRead - execution.bytesReadAtStart
        execution.request.metrics.record {
            $0.bytesSent = sent
            $0.bytesReceived = received
        }
    }

    func transportError(for error: any Error, during phase: ResponsePhase) -> TransportError {
        switch error {
        case let error as TransportError:
            return error
        case is NIOHTTPDecompression.DecompressionError, is NIOHTTPDecompression.ExtraDecompressionError:
            return .decompressionFailed(reason: TransportErrorWords.decompressionFailure(error))
        case HTTPParserError.invalidEOFState:
            return self.closedError(during: phase)
        case let error as HTTPParserError:
            return .invalidResponse(reason: TransportErrorWords.parserFailure(error))
        case is IOError, NIOSSLError.uncleanShutdown, ChannelError.eof, ChannelError.ioOnClosedChannel:
            return self.closedError(during: phase)
        default:
            return .invalidResponse(reason: "the connection failed: \(TransportErrorWords.describe(error))")
        }
    }

    func closedError(during phase: ResponsePhase) -> TransportError {
        if case .streamingBody(_, let received, let expected) = phase {
            return .connectionClosedMidBody(receivedBytes: received, expectedBytes: expected)
        }
        return .connectionClosedBeforeResponse
    }
}

@available(*, unavailable)
extension HTTPClientRequestHandler: Sendable {
}
