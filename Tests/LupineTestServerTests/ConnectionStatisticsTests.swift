import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

@Suite("Connection statistics")
struct ConnectionStatisticsTests {
    @Test func sequentialKeepAliveRequestsUseOneConnection() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            var identifiers: Set<Int> = []
            for _ in 0..<3 {
                let response = try await client.request("GET", "/get")
                #expect(response.status == 200)
                identifiers.insert(try #require(response.connectionID))
            }
            #expect(identifiers.count == 1)
            #expect(server.connections == ConnectionStatistics(accepted: 1, open: 1, peakOpen: 1))
        }
    }

    @Test func countsBothListenersAndResets() async throws {
        try await withTestServer { server in
            var main: RawHTTPClient? = try await server.connect()
            let faults = try await server.connectToFaults()
            let mainID = try #require(try await main?.request("GET", "/get").connectionID)
            let faultID = try #require(try await faults.request("GET", "/nowhere").connectionID)
            #expect(mainID != faultID)
            #expect(server.connections == ConnectionStatistics(accepted: 2, open: 2, peakOpen: 2))

            main = nil
            try await waitUntil("server.connections.open == 1") { server.connections.open == 1 }
            server.resetConnectionStatistics()
            #expect(server.connections == ConnectionStatistics(accepted: 0, open: 1, peakOpen: 1))
        }
    }
}
