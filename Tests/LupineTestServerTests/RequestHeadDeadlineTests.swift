import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

/// Deadlines here are short for a quick run but leave a request that must get in on time a
/// margin of seconds, for a machine busy with the rest of the suite.
@Suite("Request-head deadline and connection limit")
struct RequestHeadDeadlineTests {
    // Long enough for a fully loaded two-core machine to send a head in time (a task there was
    // seen to wait 6 s between connecting and sending); short enough to wait out.
    private static let deadline = LupineTestServer.Configuration(requestHeadTimeout: .seconds(15))

    /// A request head that never ends, for a slowloris to trickle.
    private static let endlessHead = Array(("GET /get HTTP/1.1\r\nHost: x\r\nX-Slow: " + String(repeating: "é", count: 200)).utf8)

    @Test(.timeLimit(.minutes(5)), arguments: [false, true])
    func silentAndTricklingConnectionsAreClosed(faultListener: Bool) async throws {
        try await withTestServer(Self.deadline) { server in
            let url = faultListener ? server.faultsBaseURL : server.baseURL
            let (host, port) = (url.host ?? "", url.port ?? 0)
            let silentCount = 100
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<silentCount {
                    group.addTask {
                        let closed = try await Blocking.run {
                            // Reads wait well past the deadline: a loaded machine fires it late.
                            let socket = try BlockingSocket.open(host: host, port: port, timeout: 60)
                            defer { socket.disconnect() }
                            return socket.waitForClose(limit: 0)
                        }
                        #expect(closed, "a silent connection stayed open")
                    }
                }
                group.addTask {
                    // 400 bytes at one per 100 ms would take 40 s; the deadline is 15 s.
                    let (sent, closed) = try await Blocking.run {
                        let socket = try BlockingSocket.open(host: host, port: port, timeout: 60)
                        defer { socket.disconnect() }
                        return (socket.trickle(Self.endlessHead, interval: 100), socket.waitForClose(limit: 0))
                    }
                    #expect(sent != nil && sent! < Self.endlessHead.count, "the slowloris was not cut off")
                    #expect(closed)
                }
                group.addTask {
                    let client = try await RawHTTPClient.connect(to: url)
                    let path = faultListener ? "/keep-alive-once" : "/get"
                    #expect(try await client.request("GET", path).status == 200)
                }
                try await group.waitForAll()
            }
            let client = try await RawHTTPClient.connect(to: url)
            #expect(try await client.request("GET", faultListener ? "/keep-alive-once" : "/get").status == 200)
            try await waitUntil("server.connections.open <= 1") { server.connections.open <= 1 }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func keepAliveConnectionIsClosedWhenTheNextHeadIsLate() async throws {
        try await withTestServer(Self.deadline) { server in
            async let main: Bool = {
                let main = try await server.connect()
                #expect(try await main.request("GET", "/get").status == 200)
                return await main.isClosedByServer()
            }()
            async let faults: Bool = {
                let faults = try await server.connectToFaults()
                #expect(try await faults.request("GET", "/nowhere").status == 404)
                return await faults.isClosedByServer()
            }()
            let (mainClosed, faultsClosed) = try await (main, faults)
            #expect(mainClosed)
            #expect(faultsClosed)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func responsesSlowerThanTheDeadlineAreNotCut() async throws {
        try await withTestServer(Self.deadline) { server in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let client = try await server.connect()
                    #expect(try await client.request("GET", "/delay/18").status == 200)
                }
                group.addTask {
                    let client = try await server.connect()
                    #expect(try await client.request("GET", "/drip?numbytes=3&duration=18").body.count == 3)
                }
                // Readers slower than the deadline: 32 MiB cannot sit in the socket buffers, so
                // the server is still writing when the pause ends.
                for (url, path) in [(server.baseURL, "/bytes/33554432"), (server.faultsBaseURL, "/interrupt?bytes=33554432&at=0")] {
                    group.addTask {
                        let reader = try await RawHTTPClient.connect(to: url)
                        try await reader.sendRequest("GET", path, headers: [("Range", "bytes=0-")])
                        let head = try await reader.readHead()
                        try await Task.sleep(for: .seconds(18))  // the slow reader's pause, not a synchronisation
                        let length = try #require(head.header("Content-Length").flatMap { Int($0) })
                        do {
                            #expect(try await reader.read(count: length).count == 33_554_432)
                        } catch RawHTTPClient.Failure.unexpectedEndOfStream(let received) {
                            Issue.record("\(path) was cut after \(received.count) of \(length) bytes")
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func bodyThatStopsArrivingIsCutAndItsReservationReturned() async throws {
        try await withTestServer(Self.deadline) { server in
            let client = try await server.connect()
            try await client.send(Array("POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\nlupine".utf8))
            #expect(await client.isClosedByServer())
            try await waitUntil("server.requestBodies.bufferedBytes == 0") { server.requestBodies.bufferedBytes == 0 }
            #expect(server.requestBodies.peakBufferedBytes == 5000)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func connectionsBeyondTheLimitAreClosedAtOnce() async throws {
        try await withTestServer(.init(requestHeadTimeout: .seconds(60), maximumConnections: 3)) { server in
            var held: [RawHTTPClient] = []
            for _ in 0..<3 {
                held.append(try await server.connect())
            }
            try await waitUntil("server.connections.open == 3") { server.connections.open == 3 }
            let refused = try await server.connectToFaults()
            #expect(await refused.isClosedByServer())
            #expect(server.connections.refused == 1)
            #expect(server.connections.open == 3)

            held.removeAll()
            try await waitUntil("server.connections.open == 0") { server.connections.open == 0 }
            let client = try await server.connect()
            #expect(try await client.request("GET", "/get").status == 200)
        }
    }

    @Test func invalidLimitsAreRejectedAtStart() async throws {
        let invalid: [LupineTestServer.Configuration] = [
            .init(requestHeadTimeout: .zero),
            .init(maximumRequestBodySize: -1),
            .init(requestBodyBudget: -1),
            .init(maximumConnections: 0),
        ]
        for configuration in invalid {
            await #expect(throws: LupineTestServer.StartupError.self) {
                _ = try await LupineTestServer.start(configuration)
            }
        }
    }
}
