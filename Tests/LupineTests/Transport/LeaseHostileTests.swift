import Foundation
import NIOConcurrencyHelpers
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

@testable import Lupine
@testable import LupineTransport

/// A hostile pass over the pool's hand-off (a waiter started by whoever frees the connection):
/// many callers on one connection cancelling at random moments, waiters (uploads among them)
/// served in arrival order, and shutdown with uploads queued. Every caller returns, and the pool
/// ends with its connection idle.
@Suite(.timeLimit(.minutes(5))) struct LeaseHostileTests {
    static let oneConnection = TransportConfiguration(maximumConnectionsPerHost: 1, connectTimeout: .seconds(60))

    enum Behaviour {
        case get, stall, upload
        /// Three plain requests and two uploads to each held-back one.
        static let weighted: [Behaviour] = [.get, .get, .get, .upload, .upload, .stall]
    }

    /// The calls in flight that a chaos task may cancel, by task or by handle.
    final class LiveCalls: Sendable {
        typealias Call = (task: Task<(TransportResponse, ByteBuffer), any Error>, cancellation: TransportCancellation)
        private let calls = NIOLockedValueBox<[Int: Call]>([:])
        private let nextID = NIOLockedValueBox(0)
        /// When each cancelled call was cancelled.
        private let cancelled = NIOLockedValueBox<[Int: ContinuousClock.Instant]>([:])

        func add(_ call: Call) -> Int {
            let id = self.nextID.withLockedValue { id in
                defer { id += 1 }
                return id
            }
            self.calls.withLockedValue { $0[id] = call }
            return id
        }

        func remove(_ id: Int) {
            self.calls.withLockedValue { $0[id] = nil }
        }

        /// Takes one call out at random, if any is in flight, noting when it is cancelled.
        func takeAny(_ random: inout SplitMix64) -> Call? {
            let taken: (Int, Call)? = self.calls.withLockedValue { calls in
                guard !calls.isEmpty else { return nil }
                let keys = calls.keys.sorted()
                // Half the time the oldest, most likely the one on the connection.
                let index = random.next() % 2 == 0 ? 0 : Int(random.next() % UInt64(keys.count))
                return calls.removeValue(forKey: keys[index]).map { (keys[index], $0) }
            }
            guard let (id, call) = taken else { return nil }
            self.cancelled.withLockedValue { $0[id] = .now }
            return call
        }

        /// When call `id` was cancelled, if it was.
        func cancelled(_ id: Int) -> ContinuousClock.Instant? {
            self.cancelled.withLockedValue { $0[id] }
        }
    }

    /// Twelve callers on one connection, each sending ten requests (plain, streamed uploads, and
    /// answers held back 30 s), while a chaos task cancels calls in flight at random moments, by
    /// task or by handle: queued, just delivered, started, mid-upload. Each ends with its answer
    /// or `cancelled` (a held-back one only with `cancelled`), and the connection ends idle.
    @Test func manyCallersCancelledAtRandomOnOneConnectionAllEnd() async throws {
        try await withServerAndTransport(transport: Self.oneConnection) { server, transport in
            let live = LiveCalls()
            let callersDone = NIOLockedValueBox(false)
            async let chaos: Void = {
                var random = SplitMix64(seed: 0xC0FFEE)
                // Bounded: the callers end once every held-back call is cancelled.
                for _ in 0..<5_000_000 {
                    if callersDone.withLockedValue({ $0 }) { return }
                    // Mostly lets calls run, so that cancels land at every stage, not only in the queue.
                    if random.next() % 16 == 0, let call = live.takeAny(&random) {
                        if random.next() % 2 == 0 { call.task.cancel() } else { call.cancellation.cancel() }
                    }
                    for _ in 0..<Int(random.next() % 40) { await Task.yield() }
                }
                Issue.record("the chaos loop ran out before the callers ended")
            }()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for caller in 0..<12 {
                    group.addTask {
                        var random = SplitMix64(seed: UInt64(caller + 1) &* 0x9E37_79B9)
                        for _ in 0..<10 {
                            let behaviour = Behaviour.weighted[Int(random.next() % UInt64(Behaviour.weighted.count))]
                            await Self.run(behaviour, server: server, transport: transport, live: live)
                        }
                    }
                }
                try await group.waitForAll()
            }
            callersDone.withLockedValue { $0 = true }
            await chaos
            try await waitUntil(timeout: .seconds(60), "the pool's connection is idle") {
                transport.connectionPoolStatistics().allSatisfy { $0.open == $0.idle && $0.open <= 1 }
            }
            #expect(transport.pool.state.withLockedValue { $0.stateMachine.waiters.isEmpty })
            let (response, _) = try await transport.get(server.baseURL.appending("/get"))
            #expect(response.status == .ok)
        }
    }

    private static func run(_ behaviour: Behaviour, server: LupineTestServer, transport: NIOTransport, live: LiveCalls) async {
        let cancellation = TransportCancellation()
        let request: TransportRequest
        switch behaviour {
        case .get:
            request = TransportRequest(url: server.baseURL.appending("/bytes/2000"), cancellation: cancellation)
        case .stall:
            // Held back 30 s, on the same listener (the same pool) as the others: only a cancel ends it sooner.
            request = TransportRequest(url: server.baseURL.appending("/delay/30"), cancellation: cancellation)
        case .upload:
            let body = ByteBuffer(repeating: UInt8(ascii: "u"), count: 3000)
            request = TransportRequest(
                method: .POST,
                url: server.baseURL.appending("/post"),
                body: .stream(
                    AsyncStream {
                        $0.yield(body); $0.finish()
                    }, length: 3000),
                cancellation: cancellation
            )
        }
        let started = ContinuousClock.now
        let task = Task { try await transport.fetch(request) }
        let id = live.add((task, cancellation))
        let result = await task.result
        live.remove(id)
        switch result {
        case .success(let (response, _)):
            #expect(response.status == .ok, "\(behaviour): answered \(response.status)")
            // A held-back call answers after 30 s unless cancelled: one cancelled well before
            // then and answered anyway lost its cancel (on a loaded machine the chaos task may
            // not reach it in time, which is no defect).
            if behaviour == .stall, let cancelledAt = live.cancelled(id) {
                #expect(cancelledAt - started > .seconds(25), "a held-back call cancelled after \(cancelledAt - started) was answered")
            }
        case .failure(TransportError.cancelled):
            break
        case .failure(let error):
            Issue.record("\(behaviour): \(error)")
        }
    }

    /// Waiters (streamed uploads among them) queued behind a busy connection are served in the
    /// order they came, each on the one connection, the cancelled ones never sent.
    @Test func queuedWaitersAreServedInArrivalOrderAndCancelledOnesAreNotSent() async throws {
        try await withScriptedServerAndTransport(transport: Self.oneConnection) { server, transport in
            let holder = Task { try await transport.fetch(TransportRequest(url: server.url.appending(path: "r0"), cancellation: TransportCancellation())) }
            let connection = try await server.nextConnection()
            #expect(await connection.readRequestHead()?.hasPrefix("GET /r0 ") == true)
            var calls: [Task<(TransportResponse, ByteBuffer), any Error>] = []
            var cancellations: [TransportCancellation] = []
            for index in 1...8 {
                let cancellation = TransportCancellation()
                let url = server.url.appending(path: "r\(index)")
                let request: TransportRequest
                if index.isMultiple(of: 2) {
                    let chunk = ByteBuffer(string: "body\(index)")
                    let body = TransportRequestBody.stream(
                        AsyncStream {
                            $0.yield(chunk); $0.finish()
                        }, length: chunk.readableBytes)
                    request = TransportRequest(method: .POST, url: url, body: body, cancellation: cancellation)
                } else {
                    request = TransportRequest(url: url, cancellation: cancellation)
                }
                calls.append(Task { try await transport.fetch(request) })
                cancellations.append(cancellation)
                try await waitUntil(timeout: .seconds(60), "request \(index) is queued") {
                    transport.pool.state.withLockedValue { $0.stateMachine.waiters.count } == index
                }
            }
            // Cancel a GET and an upload while they wait: by handle, and by task.
            cancellations[2].cancel()
            calls[3].cancel()
            await expectTransportCancelled { try await calls[2].value }
            await expectTransportCancelled { try await calls[3].value }
            try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            _ = try await holder.value
            for index in [1, 2, 5, 6, 7, 8] {
                let head = await connection.readRequestHead() ?? "(closed)"
                let method = index.isMultiple(of: 2) ? "POST" : "GET"
                #expect(head.hasPrefix("\(method) /r\(index) "), "expected request \(index), got \(head)")
                if index.isMultiple(of: 2) {
                    #expect(await connection.readBytes("body\(index)".utf8.count) == Array("body\(index)".utf8))
                }
                try await connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nr\(index)")
                let (_, body) = try await calls[index - 1].value
                #expect(body == ByteBuffer(string: "r\(index)"))
            }
            // One pool with its one connection parked (a pool whose connections are all gone is not listed).
            #expect(transport.connectionPoolStatistics().map { [$0.open, $0.idle] } == [[1, 1]])
        }
    }

    /// Shutting down with uploads and plain requests queued fails them all, and none waits on.
    @Test func shutdownWithUploadsQueuedFailsThemAll() async throws {
        let server = try await LupineTestServer.start(LupineTestServer.Configuration().lenient)
        let transport = NIOTransport(configuration: Self.oneConnection)
        // A body dripped over 30 s keeps the pool's one connection busy.
        let dripping = server.baseURL.appending("/drip?numbytes=30&duration=30")
        let busy = try await transport.execute(TransportRequest(url: dripping, cancellation: TransportCancellation()))
        var calls: [Task<(TransportResponse, ByteBuffer), any Error>] = []
        for index in 0..<6 {
            let body: TransportRequestBody? =
                index.isMultiple(of: 2)
                ? .stream(
                    AsyncStream {
                        $0.yield(ByteBuffer(string: "x")); $0.finish()
                    }, length: 1) : nil
            let request = TransportRequest(method: .POST, url: server.baseURL.appending("/post"), body: body, cancellation: TransportCancellation())
            calls.append(Task { try await transport.fetch(request) })
            try await waitUntil(timeout: .seconds(60), "request \(index) is queued") {
                transport.pool.state.withLockedValue { $0.stateMachine.waiters.count } == index + 1
            }
        }
        await transport.shutdown()
        for call in calls {
            let result = await call.result
            guard case .failure(TransportError.shutdown) = result else {
                Issue.record("a request queued at shutdown: \(result)")
                continue
            }
        }
        await #expect(throws: (any Error).self) { _ = try await busy.body.collect(upTo: 1000) }
        await server.stop()
    }
}
