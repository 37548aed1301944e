import Foundation
import LupineTestServer
import Testing

@Suite("Server lifecycle")
struct LifecycleTests {
    @Test func stopReturnsPromptlyWithStalledConnectionsOpen() async throws {
        let server = try await LupineTestServer.start()
        let stalledHead = try await server.connectToFaults()
        try await stalledHead.sendRequest("GET", "/stall-after-headers")
        #expect(try await stalledHead.readHead().header("Content-Length") == "100")
        let stalledSilent = try await server.connectToFaults()
        try await stalledSilent.sendRequest("GET", "/stall-before-headers")
        let slowMain = try await server.connect()
        try await slowMain.sendRequest("GET", "/drip?numbytes=5&duration=30")
        #expect(try await eventually { server.connections.open == 3 })

        let clock = ContinuousClock()
        let elapsed = await clock.measure {
            await server.stop()
        }
        #expect(elapsed < .seconds(3))
        #expect(try await stalledHead.readToEnd().isEmpty)
        #expect(try await stalledSilent.readToEnd().isEmpty)
        #expect(server.connections.open == 0)
        await server.stop()
    }

    @Test func idleTimeoutClosesKeepAliveConnections() async throws {
        try await withServer(.init(idleTimeout: .milliseconds(200))) { server in
            let client = try await server.connect()
            #expect(try await client.request("GET", "/get").status == 200)
            #expect(try await client.readToEnd().isEmpty)
            #expect(try await eventually { server.connections.open == 0 })
        }
    }

    @Test func servesOnIPv6Loopback() async throws {
        try await withServer(.init(host: "::1")) { server in
            #expect(server.baseURL.absoluteString == "http://[::1]:\(server.port)")
            let client = try await server.connect()
            let response = try await client.request("GET", "/get?v=6")
            #expect(try response.jsonObject()["origin"] as? String == "::1")
            let faults = try await server.connectToFaults()
            #expect(try await faults.request("GET", "/nowhere").status == 404)
        }
    }

    @Test func idleServerStopsQuickly() async throws {
        let server = try await LupineTestServer.start()
        let elapsed = await ContinuousClock().measure {
            await server.stop()
        }
        #expect(elapsed < .milliseconds(500))
    }
}
