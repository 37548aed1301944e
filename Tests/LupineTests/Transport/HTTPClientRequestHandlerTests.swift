import NIOCore
import NIOHTTP1
import Testing

@testable import Lupine
@testable import LupineTransport

/// The connection handler on an in-memory channel, no socket: the test is the server and the clock.
@Suite struct HTTPClientRequestHandlerTests {
    @Test func anEarlyResponseWhileUploadingStopsTheProducerAndClosesTheConnection() async throws {
        let harness = try await RequestHandlerHarness.make()
        let head = try await harness.start(method: .PUT, body: .streamed(length: 100))
        #expect(try await harness.written() == ["head"])
        harness.channel.isWritable = false
        let parked = try await harness.onLoop { $0.writeBodyChunk(ByteBuffer(repeating: 7, count: 10), of: 0) }
        #expect(try await harness.written() == ["body:10"])

        try await harness.respond(.head(.payloadTooLarge, ["Content-Length": "0"]))
        #expect(try await head.get().status == .payloadTooLarge)
        await #expect(throws: TransportError.self, "the parked producer is stopped") { try await parked.get() }
        let late = try await harness.onLoop { $0.writeBodyChunk(ByteBuffer(string: "more"), of: 0) }
        await #expect(throws: TransportError.self, "nothing more is sent") { try await late.get() }

        try await harness.respond(.end(nil))
        #expect(harness.finished.withLockedValue { $0 } == [false], "the request's framing is broken: not reused")
        #expect(try await harness.written() == [])
        #expect(!harness.channel.isActive)
    }

    @Test func aResponseAfterTheWholeUploadKeepsTheConnection() async throws {
        let harness = try await RequestHandlerHarness.make()
        let head = try await harness.start(method: .PUT, body: .streamed(length: 4))
        try await harness.onLoop { $0.writeBodyChunk(ByteBuffer(string: "abcd"), of: 0) }.get()
        try await harness.onLoop { $0.finishBody(of: 0) }.get()
        #expect(try await harness.written() == ["head", "body:4", "end"])
        try await harness.respond(.head(.created, ["Content-Length": "0"]), .end(nil))
        #expect(try await head.get().status == .created)
        #expect(harness.finished.withLockedValue { $0 } == [true])
        #expect(harness.channel.isActive)
        try await harness.close()
    }

    @Test func closingMidBodyEndsTheBodyWithAnError() async throws {
        let harness = try await RequestHandlerHarness.make()
        let head = try await harness.start()
        try await harness.respond(.head(.ok, ["Content-Length": "10"]), .body(ByteBuffer(string: "12345")))
        let response = try await head.get()
        try await harness.channel.close().get()
        guard harness.finished.withLockedValue({ $0 }) == [false] else {
            Issue.record("closing the connection did not end the request")
            return
        }
        var received = 0
        do {
            for try await chunk in response.body {
                received += chunk.readableBytes
            }
            Issue.record("a cut body ended as a short success")
        } catch let error as TransportError {
            #expect(error.description == "the server closed the connection after 5 of 10 body bytes")
        }
        #expect(received == 5)
    }

    @Test func twoWaitingBodyPartsHoldReadsBackUntilTheConsumerTakesBoth() async throws {
        let harness = try await RequestHandlerHarness.make()
        let head = try await harness.start()
        try await harness.respond(.head(.ok))
        let response = try await head.get()
        let before = harness.reads.withLockedValue { $0 }
        try await harness.askForRead()
        #expect(harness.reads.withLockedValue { $0 } == before + 1, "reads pass while the consumer keeps up")

        try await harness.respond(.body(ByteBuffer(string: "a")))
        try await harness.askForRead()
        #expect(harness.reads.withLockedValue { $0 } == before + 2, "one waiting part does not hold reads back")
        try await harness.respond(.body(ByteBuffer(string: "b")))
        try await harness.askForRead()
        #expect(harness.reads.withLockedValue { $0 } == before + 2, "two waiting parts hold the read back")

        var iterator = response.body.makeAsyncIterator()
        #expect(try await iterator.next().map { String(buffer: $0) } == "a")
        await harness.channel.testingEventLoop.run()
        #expect(harness.reads.withLockedValue { $0 } == before + 2, "while a part still waits, the read stays held")
        #expect(try await iterator.next().map { String(buffer: $0) } == "b")
        await harness.channel.testingEventLoop.run()
        #expect(harness.reads.withLockedValue { $0 } == before + 3, "the consumer's demand lets the held read through")

        try await harness.respond(.body(ByteBuffer(string: "c")), .end(nil))
        #expect(try await iterator.next().map { String(buffer: $0) } == "c")
        #expect(try await iterator.next() == nil)
        #expect(harness.finished.withLockedValue { $0 } == [true])
    }

    @Test func aPausedReadDoesNotTimeOutButAStalledServerDoes() async throws {
        let harness = try await RequestHandlerHarness.make()
        let head = try await harness.start(readTimeout: .seconds(1))
        try await harness.respond(.head(.ok))
        let response = try await head.get()
        for _ in 0..<20 {
            try await harness.respond(.body(ByteBuffer(string: "x")))
        }
        await harness.channel.testingEventLoop.advanceTime(by: .seconds(5))
        #expect(harness.finished.withLockedValue { $0 } == [], "the consumer's slowness is not the server's silence")

        var iterator = response.body.makeAsyncIterator()
        for _ in 0..<20 {
            _ = try await iterator.next()
        }
        await harness.channel.testingEventLoop.run()
        await harness.channel.testingEventLoop.advanceTime(by: .seconds(2))
        // Checked before awaiting the body, which would wait forever for a timeout that never came.
        guard harness.finished.withLockedValue({ $0 }) == [false] else {
            Issue.record("a stalled server did not time out")
            return
        }
        do {
            _ = try await iterator.next()
            Issue.record("a stalled server did not time out")
        } catch let error as TransportError {
            #expect(error.description == "the server sent nothing for 1 s")
        }
    }

    @Test func aServerSilentBeforeTheHeadTimesOutWhateverInformationalHeadsItSends() async throws {
        let harness = try await RequestHandlerHarness.make()
        let head = try await harness.start(readTimeout: .seconds(3))
        for _ in 0..<5 {
            await harness.channel.testingEventLoop.advanceTime(by: .milliseconds(500))
            try await harness.respond(.head(.processing))
        }
        #expect(harness.finished.withLockedValue { $0 } == [], "not yet silent for 3 s")
        await harness.channel.testingEventLoop.advanceTime(by: .seconds(1))
        // Checked before awaiting the head, which would wait forever for a timeout that never came.
        guard harness.finished.withLockedValue({ $0 }) == [false] else {
            Issue.record("a stalled server did not time out")
            return
        }
        await #expect(throws: TransportError.self) { try await head.get() }
    }

    @Test func informationalResponsesBeforeTheFinalOneAreSkipped() async throws {
        let harness = try await RequestHandlerHarness.make()
        let head = try await harness.start(method: .POST, body: .bytes(ByteBuffer(string: "{}")))
        #expect(try await harness.written() == ["head", "body:2", "end"])
        try await harness.respond(.head(.continue), .head(.init(statusCode: 103), ["Link": "</style.css>; rel=preload"]))
        try await harness.respond(.head(.ok, ["Content-Length": "2"]), .body(ByteBuffer(string: "ok")), .end(nil))
        let response = try await head.get()
        #expect(response.status == .ok)
        #expect(String(buffer: try await response.body.collect(upTo: 100)) == "ok")
        #expect(harness.finished.withLockedValue { $0 } == [true])
        try await harness.close()
    }

    @Test func aLateCancelOfAFinishedRequestLeavesTheNextOneAlone() async throws {
        let harness = try await RequestHandlerHarness.make()
        let first = try await harness.start(0)
        try await harness.respond(.head(.ok, ["Content-Length": "0"]), .end(nil))
        _ = try await first.get()
        let second = try await harness.start(1)
        try await harness.onLoop { $0.cancel(0) }
        try await harness.respond(.head(.accepted, ["Content-Length": "0"]), .end(nil))
        #expect(try await second.get().status == .accepted)
        #expect(harness.finished.withLockedValue { $0 } == [true, true])
        try await harness.close()
    }
}
