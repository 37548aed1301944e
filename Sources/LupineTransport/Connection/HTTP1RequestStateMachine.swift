import NIOCore
import NIOHTTP1

/// The decisions for the requests on one HTTP/1.1 connection, one at a time, kept free of the
/// channel, of promises and of the clock (every event that needs the time is given it), so each
/// rule can be tested with plain values. ``HTTPClientRequestHandler`` feeds it the connection's
/// events and performs the ``Action`` it returns.
///
/// Rules: a request starts only on an idle connection; a streamed body is counted against its
/// declared length; a 2xx response that starts while the body is still being sent lets the upload
/// go on to its end (as curl and AsyncHTTPClient do: the server may answer first and read on),
/// and the request ends when both have (a body of declared length has once its last byte is
/// written, however late its source reports its end); any other response stops the upload and
/// makes the connection unusable afterwards (its request framing is broken); 1xx informational
/// heads other than 101 are skipped; socket reads are held back while the consumer's buffer is
/// full; a request fails when the server stays silent for its read timeout, silence the client
/// causes itself (a paused consumer, a slow body source) not counting; any failure closes the
/// connection.
struct HTTP1RequestStateMachine {
    /// Tells one request on a connection from the next, so that a late cancel, body write or timer
    /// of a finished request never reaches the one after it.
    typealias RequestID = Int

    enum RequestPhase: Equatable {
        /// A streamed body is being produced; `producerParked` while its producer waits for the
        /// channel to become writable.
        case sendingBody(declaredLength: Int?, sent: Int, producerParked: Bool)
        /// The whole request is written, or its sending was stopped by an early response.
        case sent
    }

    enum ResponsePhase: Equatable {
        case awaitingHead
        case streamingBody(received: Int, expected: Int?)
        /// A 2xx response came whole while the body was still being sent: the body stream ends
        /// (or fails) with the upload.
        case receivedWhileSending
    }

    /// The request in flight.
    struct Running: Equatable {
        let id: RequestID
        var requestPhase: RequestPhase
        var responsePhase: ResponsePhase
        /// Whether the connection may carry another request after this one.
        var keepAlive: Bool
        let readTimeout: TimeAmount?
        /// The last time the server sent a byte or took one of ours.
        var lastActivity: NIODeadline
    }

    enum State {
        case idle
        case running(Running)
        /// The connection is unusable; later requests fail with this error.
        case closed(TransportError)
    }

    enum Action {
        case none
        /// Write `head`, then the body in memory and the request's end, or (for a streamed body)
        /// flush and let the producer write; arm the read timer when `readTimeout` is set.
        case startRequest(head: HTTPRequestHead, body: PreparedRequest.Body, readTimeout: TimeAmount?)
        /// The request cannot start on this connection.
        case refuseRequest(TransportError)
        /// Write and flush the body part the producer handed over.
        case writeBodyPart(ByteBuffer)
        /// Hold the body producer until the channel becomes writable.
        case parkBodyProducer
        /// Let the parked body producer go on.
        case resumeBodyProducer
        /// The producer's write or end belongs to no request that is sending: fail it with this.
        case refuseBodyWrite(TransportError)
        /// Write and flush the end of the request, then ask ``requestEndWritten()`` what follows.
        case writeRequestEnd
        /// Hand the response head to the caller and open its body stream; with `stopUpload`, fail
        /// the parked body producer with ``TransportError/cancelled``.
        case forwardHead(HTTPResponseHead, stopUpload: Bool)
        /// Hand the body part to the consumer; `totalReceived` counts the body bytes so far.
        case forwardBodyPart(ByteBuffer, totalReceived: Int)
        /// Let a socket read through.
        case read
        /// Re-arm the read timer.
        case scheduleReadTimer(in: TimeAmount)
        /// The response ended: finish the body stream; keep the connection when `reusable`, else
        /// close it; let a held read through when `resumeReading`.
        case succeedRequest(reusable: Bool, resumeReading: Bool)
        /// Fail the request (its head promise or body stream, a parked producer) and close the connection.
        case failRequest(TransportError)
        /// Close a connection that has no request (the server sent what nobody asked for).
        case closeConnection
    }

    // Written by the machine's own methods only (in this file and its extensions).
    var state: State = .idle
    /// The consumer has enough buffered: socket reads are held back until it asks for more.
    var readsPaused = false
    /// A read asked for while paused, to let through on demand.
    var heldRead = false

    // MARK: Starting a request

    /// A request wants to start: its head gets its framing headers (`Content-Length`, or chunked
    /// for a streamed body of unknown length).
    mutating func start(
        _ id: RequestID,
        head: HTTPRequestHead,
        body: PreparedRequest.Body,
        readTimeout: TimeAmount?,
        now: NIODeadline
    ) -> Action {
        switch self.state {
        case .closed(let error):
            return .refuseRequest(error)
        case .running:
            return .refuseRequest(.connectionClosedBeforeResponse)
        case .idle:
            break
        }
        var head = head
        // The body decides the framing: a caller's own Content-Length or Transfer-Encoding would
        // give the request two framings, or one the body does not follow (RFC 9112, 6.1-6.3).
        // Only a Content-Length of 0 on a request without a body agrees with it, and stays, as
        // curl sends it.
        let lengths = head.headers["Content-Length"]
        let callerAnnouncesNoBody = !lengths.isEmpty && lengths.allSatisfy { $0 == "0" }
        head.headers.remove(name: "Content-Length")
        head.headers.remove(name: "Transfer-Encoding")
        let requestPhase: RequestPhase
        switch body {
        case .none:
            if callerAnnouncesNoBody || head.method == .POST || head.method == .PUT || head.method == .PATCH {
                head.headers.replaceOrAdd(name: "Content-Length", value: "0")
            }
            requestPhase = .sent
        case .bytes(let bytes):
            head.headers.replaceOrAdd(name: "Content-Length", value: String(bytes.readableBytes))
            requestPhase = .sent
        case .streamed(let length?):
            head.headers.replaceOrAdd(name: "Content-Length", value: String(length))
            requestPhase = .sendingBody(declaredLength: length, sent: 0, producerParked: false)
        case .streamed(nil):
            head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            requestPhase = .sendingBody(declaredLength: nil, sent: 0, producerParked: false)
        }
        self.state = .running(
            Running(
                id: id,
                requestPhase: requestPhase,
                responsePhase: .awaitingHead,
                keepAlive: head.isKeepAlive,
                readTimeout: readTimeout,
                lastActivity: now
            )
        )
        return .startRequest(head: head, body: body, readTimeout: readTimeout)
    }

    // MARK: Sending a streamed body

    /// The body producer of request `id` hands over `part`.
    mutating func bodyPartToWrite(_ id: RequestID, part: ByteBuffer) -> Action {
        guard case .running(var running) = self.state, running.id == id,
            case .sendingBody(let declared, let sent, _) = running.requestPhase
        else {
            return .refuseBodyWrite(self.refusal)
        }
        let total = sent + part.readableBytes
        if let declared, total > declared {
            return self.fail(.requestBodyLengthMismatch(declared: declared, produced: total))
        }
        running.requestPhase = .sendingBody(declaredLength: declared, sent: total, producerParked: false)
        self.state = .running(running)
        return .writeBodyPart(part)
    }

    /// A body part was written and flushed; the producer waits when the channel is not writable.
    /// The last declared byte after a whole 2xx answer ends the request, without waiting for the
    /// source to say it is done: a server that has it all may close at once.
    mutating func bodyPartWritten(channelIsWritable: Bool) -> Action {
        guard case .running(var running) = self.state,
            case .sendingBody(let declared, let sent, _) = running.requestPhase
        else {
            return .none
        }
        if running.responsePhase == .receivedWhileSending, sent == declared {
            running.requestPhase = .sent
            self.state = .running(running)
            return .writeRequestEnd
        }
        guard !channelIsWritable else {
            return .none
        }
        running.requestPhase = .sendingBody(declaredLength: declared, sent: sent, producerParked: true)
        self.state = .running(running)
        return .parkBodyProducer
    }

    /// The body producer of request `id` is done: its bytes must match the declared length.
    mutating func bodyEnded(_ id: RequestID) -> Action {
        guard case .running(var running) = self.state, running.id == id,
            case .sendingBody(let declared, let sent, _) = running.requestPhase
        else {
            return .refuseBodyWrite(self.refusal)
        }
        if let declared, sent != declared {
            return self.fail(.requestBodyLengthMismatch(declared: declared, produced: sent))
        }
        running.requestPhase = .sent
        self.state = .running(running)
        return .writeRequestEnd
    }

    /// The request's end is written: a response that came whole while the body was being sent
    /// (a 2xx early answer) now succeeds.
    mutating func requestEndWritten() -> Action {
        guard case .running(let running) = self.state, case .receivedWhileSending = running.responsePhase else {
            return .none
        }
        return self.succeed(keepAlive: running.keepAlive)
    }

    /// The body producer of request `id` failed; the request fails with its error.
    mutating func bodyFailed(_ id: RequestID, error: any Error) -> Action {
        guard case .running(let running) = self.state, running.id == id, case .sendingBody = running.requestPhase else {
            return .none
        }
        switch error {
        case let error as TransportError:
            return self.fail(error)
        case is CancellationError:
            return self.fail(.cancelled)
        default:
            return self.fail(.requestBodyFailed(underlying: error))
        }
    }

    /// The channel's writability changed; the server taking our bytes counts as activity.
    mutating func writabilityChanged(isWritable: Bool, now: NIODeadline) -> Action {
        guard isWritable, case .running(var running) = self.state,
            case .sendingBody(let declared, let sent, producerParked: true) = running.requestPhase
        else {
            return .none
        }
        running.requestPhase = .sendingBody(declaredLength: declared, sent: sent, producerParked: false)
        running.lastActivity = now
        self.state = .running(running)
        return .resumeBodyProducer
    }

    /// What a body write that belongs to no sending request fails with.
    private var refusal: TransportError {
        if case .closed(let error) = self.state {
            return error
        }
        return .cancelled
    }
}
