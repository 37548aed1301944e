import NIOCore
import NIOHTTP1

/// Receiving the response: its head (1xx skipped, an early answer other than 2xx stopping the
/// upload), its body parts, its end, and the read pausing that keeps a slow consumer's buffer bounded.
extension HTTP1RequestStateMachine {
    /// A response head arrived.
    mutating func receivedHead(_ head: HTTPResponseHead, now: NIODeadline) -> Action {
        guard case .running(var running) = self.state else {
            return self.responseNobodyAskedFor()
        }
        // An informational head (100 Continue, 103 Early Hints) precedes the real one and is
        // skipped. It is not activity either: an endless stream of them cannot keep the read
        // timer from firing. 101 is final: no upgrade is asked for, so a server that switches
        // anyway gets its answer failed by the bytes that follow.
        if head.status.code >= 100, head.status.code < 200, head.status != .switchingProtocols {
            return .none
        }
        running.lastActivity = now
        guard case .awaitingHead = running.responsePhase else {
            self.state = .running(running)
            return .none
        }
        // A connection that switched protocols no longer speaks HTTP/1.1: never reused.
        running.keepAlive = running.keepAlive && head.isKeepAlive && head.status != .switchingProtocols
        var stopUpload = false
        if case .sendingBody(_, _, let parked) = running.requestPhase, !(200..<300).contains(head.status.code) {
            // The server refused before the request body was complete: stop sending (the server
            // has decided), and never reuse the connection, whose request framing is now broken.
            // A 2xx answer is the server's choice to answer first: the body is sent on.
            running.keepAlive = false
            running.requestPhase = .sent
            stopUpload = parked
        }
        let expected = head.headers.first(name: "Content-Length").flatMap(Int.init)
        running.responsePhase = .streamingBody(received: 0, expected: expected)
        self.state = .running(running)
        return .forwardHead(head, stopUpload: stopUpload)
    }

    /// A response body part arrived.
    mutating func receivedBodyPart(_ part: ByteBuffer, now: NIODeadline) -> Action {
        guard case .running(var running) = self.state else {
            return self.responseNobodyAskedFor()
        }
        running.lastActivity = now
        guard case .streamingBody(let received, let expected) = running.responsePhase else {
            self.state = .running(running)
            return .none
        }
        let total = received + part.readableBytes
        running.responsePhase = .streamingBody(received: total, expected: expected)
        self.state = .running(running)
        return .forwardBodyPart(part, totalReceived: total)
    }

    /// The response ended. The connection is released before the consumer learns the body ended
    /// (the handler finishes the stream last), so that its next request finds it idle.
    mutating func receivedEnd() -> Action {
        guard case .running(var running) = self.state else {
            return self.responseNobodyAskedFor()
        }
        guard case .streamingBody = running.responsePhase else {
            return .none
        }
        if case .sendingBody(let declared, let sent, _) = running.requestPhase {
            // A 2xx answer, whole before the request body: the request ends with the upload,
            // which already has when every declared byte is written (its source may say so late).
            running.responsePhase = .receivedWhileSending
            if sent == declared {
                running.requestPhase = .sent
            }
            self.state = .running(running)
            return sent == declared ? .writeRequestEnd : .none
        }
        return self.succeed(keepAlive: running.keepAlive)
    }

    /// Ends the request in flight: the connection goes back idle when `keepAlive`, else closes.
    mutating func succeed(keepAlive: Bool) -> Action {
        self.state = keepAlive ? .idle : .closed(.connectionClosedBeforeResponse)
        let resumeReading = self.heldRead
        self.readsPaused = false
        self.heldRead = false
        return .succeedRequest(reusable: keepAlive, resumeReading: resumeReading)
    }

    // MARK: Read pausing

    /// The channel wants to read from the socket.
    mutating func read() -> Action {
        if self.readsPaused {
            self.heldRead = true
            return .none
        }
        return .read
    }

    /// The consumer's buffer of request `id` is full: reads wait until it asks for more.
    mutating func consumerBufferFull(_ id: RequestID) {
        guard case .running(let running) = self.state, running.id == id else { return }
        self.readsPaused = true
    }

    /// The consumer of request `id` asks for more: a held read goes through.
    mutating func consumerDemand(_ id: RequestID) -> Action {
        guard case .running(let running) = self.state, running.id == id else { return .none }
        self.readsPaused = false
        guard self.heldRead else { return .none }
        self.heldRead = false
        return .read
    }

    /// Bytes with no request to belong to: the connection's framing cannot be trusted any more.
    private mutating func responseNobodyAskedFor() -> Action {
        if case .idle = self.state {
            self.state = .closed(.connectionClosedBeforeResponse)
            return .closeConnection
        }
        return .none
    }
}
