import NIOCore
import NIOHTTP1
import NIOSSL

/// The ways a request ends other than its response's end: the idle-read and whole-request timers,
/// cancellation, errors from the pipeline, and the connection closing.
extension HTTP1RequestStateMachine {
    // MARK: Timers

    /// The read timer of request `id` fired. Activity only moved the last-activity instant, so the
    /// timer is re-armed for the remainder while the server is not silent for long enough. Silence
    /// that is ours (a consumer holding reads back, a body source slow to produce) does not count:
    /// the caller of an answered upload reads the response while the body is still being sent.
    mutating func readTimerFired(_ id: RequestID, now: NIODeadline) -> Action {
        guard case .running(var running) = self.state, running.id == id, let timeout = running.readTimeout else {
            return .none
        }
        let idle = now - running.lastActivity
        if idle < timeout {
            return .scheduleReadTimer(in: timeout - idle)
        }
        switch (running.requestPhase, running.responsePhase) {
        case (.sendingBody(_, _, producerParked: false), _):
            break
        case (.sendingBody(_, _, producerParked: true), .streamingBody) where !self.readsPaused, (.sendingBody, .receivedWhileSending):
            // Answered (2xx), and the server takes no more of the body while it has nothing more
            // to send, or nothing the caller has not read yet.
            return self.fail(.uploadStalledAfterAnswer(timeout: timeout))
        default:
            guard self.readsPaused else {
                return self.fail(.readTimeout(timeout: timeout))
            }
        }
        running.lastActivity = now
        self.state = .running(running)
        return .scheduleReadTimer(in: timeout)
    }

    /// The whole-request deadline of request `id`, set from `timeout`, passed.
    mutating func deadlinePassed(_ id: RequestID, timeout: TimeAmount) -> Action {
        guard case .running(let running) = self.state, running.id == id else { return .none }
        return self.fail(.requestTimeout(timeout: timeout))
    }

    // MARK: Cancelling

    /// Request `id` is cancelled (by its caller, or by its consumer dropping the body).
    mutating func cancel(_ id: RequestID) -> Action {
        guard case .running(let running) = self.state, running.id == id else { return .none }
        return self.fail(.cancelled)
    }

    // MARK: The pipeline and the connection

    /// An error came up the pipeline.
    mutating func errorCaught(_ error: any Error) -> Action {
        guard case .running(let running) = self.state else {
            return .closeConnection
        }
        return self.fail(Self.transportError(for: error, during: running))
    }

    /// The connection closed.
    mutating func channelInactive() -> Action {
        guard case .running(let running) = self.state else {
            self.state = .closed(.connectionClosedBeforeResponse)
            return .none
        }
        return self.fail(Self.closedError(during: running))
    }

    /// Fails the request in flight; the connection is unusable from now on.
    mutating func fail(_ error: TransportError) -> Action {
        guard case .running = self.state else { return .none }
        self.state = .closed(error)
        self.readsPaused = false
        self.heldRead = false
        return .failRequest(error)
    }

    static func transportError(for error: any Error, during running: Running) -> TransportError {
        switch error {
        case let error as TransportError:
            return error
        case HTTPParserError.invalidEOFState:
            return self.closedError(during: running)
        case let error as HTTPParserError:
            return .invalidResponse(reason: TransportErrorWords.parserFailure(error))
        case is IOError, NIOSSLError.uncleanShutdown, ChannelError.eof, ChannelError.ioOnClosedChannel:
            return self.closedError(during: running)
        default:
            return .invalidResponse(reason: "the connection failed: \(TransportErrorWords.describe(error))")
        }
    }

    static func closedError(during running: Running) -> TransportError {
        switch (running.responsePhase, running.requestPhase) {
        case (.streamingBody(let received, let expected), _):
            return .connectionClosedMidBody(receivedBytes: received, expectedBytes: expected)
        case (.receivedWhileSending, .sendingBody(let declared, let sent, _)):
            return .connectionClosedMidUpload(sentBytes: sent, declaredBytes: declared)
        default:
            return .connectionClosedBeforeResponse
        }
    }
}
