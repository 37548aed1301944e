import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

@Suite("Server lifecycle")
struct LifecycleTests {
    @Test(.timeLimit(.minutes(5)))
    func stopReturnsWithStalledConnectionsOpen() async throws {
        // A minute for each head: the server's own 10 s closed a connection of a loaded run early.
        let server = try await LupineTestServer.start(.init(requestHeadTimeout: .seconds(60)))
        let stalledHead = try await server.connectToFaults()
        try await stalledHead.sendRequest("GET", "/stall-after-headers")
        #expect(try await stalledHead.readHead().header("Content-Length") == "100")
        let stalledSilent = try await server.connectToFaults()
        try await stalledSilent.sendRequest("GET", "/stall-before-headers")
        let slowMain = try await server.connect()
        try await slowMain.sendRequest("GET", "/drip?numbytes=5&duration=30")
        try await waitUntil("server.connections.open == 3") { server.connections.open == 3 }

        await server.stop()
        #expect(await stalledHead.isClosedByServer())
        #expect(await stalledSilent.isClosedByServer())
        #expect(server.connections.open == 0)
        await server.stop()
    }

    @Test func idleTimeoutClosesKeepAliveConnections() async throws {
        // Long enough that a request on a fully loaded two-core machine is not idle before it
        // starts (6 s was seen to be too short while the whole suite ran).
        try await withTestServer(.init(idleTimeout: .seconds(20), requestHeadTimeout: .seconds(60))) { server in
            let client = try await server.connect()
            #expect(try await client.request("GET", "/get").status == 200)
            #expect(await client.isClosedByServer())
            try await waitUntil("server.connections.open == 0") { server.connections.open == 0 }
        }
    }

    @Test func servesOnIPv6Loopback() async throws {
        try await withTestServer(.init(host: "::1", requestHeadTimeout: .seconds(60))) { server in
            #expect(server.baseURL.absoluteString == "http://[::1]:\(server.port)")
            let client = try await server.connect()
            let response = try await client.request("GET", "/get?v=6")
            #expect(try response.jsonObject()["origin"] as? String == "::1")
            let faults = try await server.connectToFaults()
            #expect(try await faults.request("GET", "/nowhere").status == 404)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func stoppedServerRefusesConnections() async throws {
        let server = try await LupineTestServer.start()
        await server.stop()
        let accepted = server.connections.accepted
        // The port may already serve another test's server (the kernel hands freed ports out
        // again), so what counts is that the stopped server itself accepts nothing more.
        _ = try? await server.connect()
        #expect(server.connections.accepted == accepted)
    }
}
