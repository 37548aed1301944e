import NIOCore
import NIOHTTP1
import Testing

@testable import Lupine
@testable import LupineTransport

/// The connection handler's rules, exercised as pure state transitions without a channel.
@Suite struct HTTP1RequestStateMachineTests {
    typealias Machine = HTTP1RequestStateMachine
    static let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static func head(_ method: HTTPMethod = .GET) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: method, uri: "/")
    }

    static func response(_ status: HTTPResponseStatus, _ headers: HTTPHeaders = [:]) -> HTTPResponseHead {
        HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    }

    /// A machine running request `id`, started with `body`.
    static func running(_ id: Int = 0, body: PreparedRequest.Body = .none, readTimeout: TimeAmount? = .seconds(10)) -> Machine {
        var machine = Machine()
        _ = machine.start(id, head: Self.head(.POST), body: body, readTimeout: readTimeout, now: Self.t0)
        return machine
    }

    @Test func startAddsTheFramingHeaders() {
        func framed(_ method: HTTPMethod, _ body: PreparedRequest.Body) -> HTTPHeaders? {
            var machine = Machine()
            guard case .startRequest(let head, _, _) = machine.start(1, head: Self.head(method), body: body, readTimeout: nil, now: Self.t0) else {
                return nil
            }
            return head.headers
        }
        #expect(framed(.GET, .none)?.contains(name: "Content-Length") == false)
        #expect(framed(.POST, .none)?["Content-Length"] == ["0"])
        #expect(framed(.PUT, .bytes(ByteBuffer(string: "hello")))?["Content-Length"] == ["5"])
        #expect(framed(.PUT, .streamed(length: 7))?["Content-Length"] == ["7"])
        #expect(framed(.PUT, .streamed(length: nil))?["Transfer-Encoding"] == ["chunked"])
    }

    @Test func aCallersFramingHeadersGiveWayToTheBodys() {
        func framed(_ method: HTTPMethod, _ body: PreparedRequest.Body, _ own: HTTPHeaders) -> HTTPHeaders? {
            var machine = Machine()
            var head = Self.head(method)
            head.headers = own
            guard case .startRequest(let head, _, _) = machine.start(1, head: head, body: body, readTimeout: nil, now: Self.t0) else {
                return nil
            }
            return head.headers
        }
        let chunked: HTTPHeaders = ["Transfer-Encoding": "chunked", "X-Kept": "1"]
        let sized: HTTPHeaders = ["Content-Length": "3", "content-length": "9", "X-Kept": "1"]
        // A body of unknown length is chunked and carries no Content-Length of the caller's.
        let streamed = framed(.PUT, .streamed(length: nil), sized)
        #expect(streamed?.contains(name: "Content-Length") == false)
        #expect(streamed?["Transfer-Encoding"] == ["chunked"])
        // A sized body is sized by itself, and a caller's Transfer-Encoding goes.
        #expect(framed(.PUT, .bytes(ByteBuffer(string: "hello")), chunked)?["Content-Length"] == ["5"])
        #expect(framed(.PUT, .bytes(ByteBuffer(string: "hello")), chunked)?.contains(name: "Transfer-Encoding") == false)
        #expect(framed(.PUT, .streamed(length: 7), sized)?["Content-Length"] == ["7"])
        // No body: a GET announces none, whatever the caller set.
        #expect(framed(.GET, .none, sized)?.contains(name: "Content-Length") == false)
        #expect(framed(.GET, .none, chunked)?.contains(name: "Transfer-Encoding") == false)
        #expect(framed(.GET, .none, chunked)?["X-Kept"] == ["1"])
    }

    @Test func aBusyOrClosedConnectionRefusesARequest() {
        var machine = Self.running(0)
        #expect(machine.start(1, head: Self.head(), body: .none, readTimeout: nil, now: Self.t0).name == "refuseRequest")
        _ = machine.cancel(0)
        guard case .refuseRequest(let error) = machine.start(2, head: Self.head(), body: .none, readTimeout: nil, now: Self.t0) else {
            Issue.record("a closed connection took a request")
            return
        }
        #expect(error.description == TransportError.cancelled.description)
    }

    @Test func aStreamedBodyIsCountedAgainstItsDeclaredLength() {
        var machine = Self.running(body: .streamed(length: 10))
        #expect(machine.bodyPartToWrite(0, part: ByteBuffer(repeating: 1, count: 6)).name == "writeBodyPart")
        #expect(machine.bodyEnded(0).failure == "the request body declared 10 bytes but produced 6")
        #expect(machine.bodyPartToWrite(0, part: ByteBuffer(repeating: 1, count: 1)).name == "refuseBodyWrite")

        var longer = Self.running(body: .streamed(length: 4))
        #expect(longer.bodyPartToWrite(0, part: ByteBuffer(repeating: 1, count: 5)).failure == "the request body declared 4 bytes but produced 5")

        var exact = Self.running(body: .streamed(length: 3))
        #expect(exact.bodyPartToWrite(0, part: ByteBuffer(repeating: 1, count: 3)).name == "writeBodyPart")
        #expect(exact.bodyEnded(0).name == "writeRequestEnd")
        #expect(exact.running?.requestPhase == .sent)
    }

    @Test func aFullChannelParksTheProducerUntilItIsWritable() {
        var machine = Self.running(body: .streamed(length: nil))
        _ = machine.bodyPartToWrite(0, part: ByteBuffer(string: "a"))
        #expect(machine.bodyPartWritten(channelIsWritable: true).name == "none")
        #expect(machine.bodyPartWritten(channelIsWritable: false).name == "parkBodyProducer")
        let later = Self.t0 + .seconds(3)
        #expect(machine.writabilityChanged(isWritable: false, now: later).name == "none")
        #expect(machine.writabilityChanged(isWritable: true, now: later).name == "resumeBodyProducer")
        #expect(machine.running?.lastActivity == later, "the server taking our bytes is activity")
        #expect(machine.writabilityChanged(isWritable: true, now: later).name == "none", "resumed once")
    }

    @Test func anEarlyResponseStopsTheUploadAndTheConnectionIsNotReused() {
        var machine = Self.running(body: .streamed(length: 100))
        _ = machine.bodyPartToWrite(0, part: ByteBuffer(repeating: 0, count: 10))
        _ = machine.bodyPartWritten(channelIsWritable: false)
        guard case .forwardHead(_, let stopUpload) = machine.receivedHead(Self.response(.payloadTooLarge, ["Content-Length": "2"]), now: Self.t0)
        else {
            Issue.record("the early head was not forwarded")
            return
        }
        #expect(stopUpload, "the parked producer is told to stop")
        guard case .refuseBodyWrite(let refusal) = machine.bodyPartToWrite(0, part: ByteBuffer(string: "x")) else {
            Issue.record("the producer could write after the server answered")
            return
        }
        #expect(refusal.description == TransportError.cancelled.description)
        #expect(machine.receivedBodyPart(ByteBuffer(string: "no"), now: Self.t0).name == "forwardBodyPart")
        guard case .succeedRequest(let reusable, _) = machine.receivedEnd() else {
            Issue.record("the early response did not complete")
            return
        }
        #expect(!reusable, "the request's framing is broken")
        #expect(machine.start(1, head: Self.head(), body: .none, readTimeout: nil, now: Self.t0).name == "refuseRequest")
    }

    @Test func aResponseAfterTheWholeRequestKeepsTheConnection() {
        var machine = Self.running(body: .bytes(ByteBuffer(string: "{}")))
        #expect(machine.receivedHead(Self.response(.ok, ["Content-Length": "3"]), now: Self.t0).name == "forwardHead")
        guard case .forwardBodyPart(_, let total) = machine.receivedBodyPart(ByteBuffer(string: "abc"), now: Self.t0) else {
            Issue.record("the body part was not forwarded")
            return
        }
        #expect(total == 3)
        guard case .succeedRequest(true, false) = machine.receivedEnd() else {
            Issue.record("a keep-alive exchange did not leave the connection reusable")
            return
        }
        #expect(machine.start(1, head: Self.head(), body: .none, readTimeout: nil, now: Self.t0).name == "startRequest")

        var closing = Self.running()
        _ = closing.receivedHead(Self.response(.ok, ["Connection": "close"]), now: Self.t0)
        guard case .succeedRequest(false, _) = closing.receivedEnd() else {
            Issue.record("a Connection: close response left the connection reusable")
            return
        }
    }

    @Test func informationalHeadsBeforeTheFinalOneAreSkipped() {
        var machine = Self.running()
        #expect(machine.receivedHead(Self.response(.continue), now: Self.t0 + .seconds(1)).name == "none")
        #expect(machine.receivedHead(Self.response(.init(statusCode: 103)), now: Self.t0 + .seconds(2)).name == "none")
        #expect(machine.receivedEnd().name == "none", "an informational head ends nothing")
        #expect(machine.running?.responsePhase == .awaitingHead)
        #expect(machine.running?.lastActivity == Self.t0, "an informational head is no sign of progress")
        guard case .forwardHead(let head, _) = machine.receivedHead(Self.response(.created), now: Self.t0) else {
            Issue.record("the final head was not forwarded")
            return
        }
        #expect(head.status == .created)
        var switching = Self.running()
        #expect(switching.receivedHead(Self.response(.switchingProtocols), now: Self.t0).name == "forwardHead", "101 is final")
        #expect(switching.running?.keepAlive == false, "a connection that switched protocols is never reused")
    }

    @Test func aFullConsumerHoldsReadsBackUntilItAsksForMore() {
        var machine = Self.running()
        _ = machine.receivedHead(Self.response(.ok), now: Self.t0)
        #expect(machine.read().name == "read")
        machine.consumerBufferFull(0)
        #expect(machine.read().name == "none")
        #expect(machine.heldRead)
        #expect(machine.consumerDemand(7).name == "none", "another request's demand")
        #expect(machine.consumerDemand(0).name == "read")
        #expect(machine.consumerDemand(0).name == "none", "the held read went through once")
        machine.consumerBufferFull(0)
        _ = machine.read()
        guard case .succeedRequest(_, true) = machine.receivedEnd() else {
            Issue.record("the held read was not let through at the end")
            return
        }
        #expect(machine.read().name == "read")
    }

    @Test func theReadTimerCountsOnlyTheServersSilence() {
        let timeout = TimeAmount.seconds(10)
        var machine = Self.running(readTimeout: timeout)
        _ = machine.receivedHead(Self.response(.ok), now: Self.t0 + .seconds(4))
        guard case .scheduleReadTimer(let remainder) = machine.readTimerFired(0, now: Self.t0 + .seconds(10)) else {
            Issue.record("activity did not move the timer")
            return
        }
        #expect(remainder == .seconds(4))
        machine.consumerBufferFull(0)
        guard case .scheduleReadTimer(let full) = machine.readTimerFired(0, now: Self.t0 + .seconds(14)) else {
            Issue.record("a slow consumer timed the server out")
            return
        }
        #expect(full == timeout)
        _ = machine.consumerDemand(0)
        #expect(machine.readTimerFired(0, now: Self.t0 + .seconds(24)).failure == "the server sent nothing for 10 s")
        #expect(machine.readTimerFired(0, now: Self.t0 + .seconds(40)).name == "none", "once failed, nothing more")
    }

    @Test func aSlowBodySourceIsNotTheServersSilenceButAFullSocketIs() {
        var producing = Self.running(body: .streamed(length: nil), readTimeout: .seconds(5))
        #expect(producing.readTimerFired(0, now: Self.t0 + .seconds(5)).name == "scheduleReadTimer")
        _ = producing.bodyPartToWrite(0, part: ByteBuffer(string: "a"))
        _ = producing.bodyPartWritten(channelIsWritable: false)
        #expect(producing.readTimerFired(0, now: Self.t0 + .seconds(20)).name == "failRequest", "the server stopped taking bytes")
    }

    @Test func theConnectionClosingFailsTheRequestByPhase() {
        var beforeHead = Self.running()
        #expect(beforeHead.channelInactive().failure == TransportError.connectionClosedBeforeResponse.description)

        var midBody = Self.running()
        _ = midBody.receivedHead(Self.response(.ok, ["Content-Length": "10"]), now: Self.t0)
        _ = midBody.receivedBodyPart(ByteBuffer(string: "12345"), now: Self.t0)
        #expect(midBody.channelInactive().failure == "the server closed the connection after 5 of 10 body bytes")

        var idle = Machine()
        #expect(idle.channelInactive().name == "none")
        #expect(idle.start(0, head: Self.head(), body: .none, readTimeout: nil, now: Self.t0).name == "refuseRequest")
    }

    @Test func errorsAreTranslatedByPhase() {
        var midBody = Self.running()
        _ = midBody.receivedHead(Self.response(.ok), now: Self.t0)
        #expect(midBody.errorCaught(HTTPParserError.invalidEOFState).failure == "the server closed the connection after 0 body bytes")
        var idle = Machine()
        #expect(idle.errorCaught(ChannelError.eof).name == "closeConnection")
        var timedOut = Self.running()
        #expect(timedOut.deadlinePassed(0, timeout: .seconds(2)).failure == "the request did not complete within 2 s")
    }

    @Test func lateEventsOfAFinishedRequestNeverReachTheNextOne() {
        var machine = Self.running(0)
        _ = machine.receivedHead(Self.response(.ok), now: Self.t0)
        _ = machine.receivedEnd()
        _ = machine.start(1, head: Self.head(.PUT), body: .streamed(length: nil), readTimeout: .seconds(1), now: Self.t0)
        #expect(machine.cancel(0).name == "none")
        #expect(machine.readTimerFired(0, now: Self.t0 + .seconds(60)).name == "none")
        #expect(machine.deadlinePassed(0, timeout: .seconds(1)).name == "none")
        #expect(machine.bodyPartToWrite(0, part: ByteBuffer(string: "x")).name == "refuseBodyWrite")
        #expect(machine.bodyFailed(0, error: CancellationError()).name == "none")
        #expect(machine.running?.id == 1)
        #expect(machine.cancel(1).failure == TransportError.cancelled.description)
    }

    @Test func aResponseNobodyAskedForClosesTheConnection() {
        var machine = Machine()
        #expect(machine.receivedHead(Self.response(.ok), now: Self.t0).name == "closeConnection")
        #expect(machine.receivedEnd().name == "none", "closed once")
    }
}

extension HTTP1RequestStateMachine {
    var running: Running? {
        if case .running(let running) = self.state { return running }
        return nil
    }
}

extension HTTP1RequestStateMachine.Action {
    /// The failure's sentence when the action fails the request.
    var failure: String? {
        if case .failRequest(let error) = self { return error.description }
        return nil
    }

    /// The action's case, for comparing actions whose payloads a test does not care about.
    var name: String {
        switch self {
        case .none: "none"
        case .startRequest: "startRequest"
        case .refuseRequest: "refuseRequest"
        case .writeBodyPart: "writeBodyPart"
        case .parkBodyProducer: "parkBodyProducer"
        case .resumeBodyProducer: "resumeBodyProducer"
        case .refuseBodyWrite: "refuseBodyWrite"
        case .writeRequestEnd: "writeRequestEnd"
        case .forwardHead: "forwardHead"
        case .forwardBodyPart: "forwardBodyPart"
        case .read: "read"
        case .scheduleReadTimer: "scheduleReadTimer"
        case .succeedRequest: "succeedRequest"
        case .failRequest: "failRequest"
        case .closeConnection: "closeConnection"
        }
    }
}
