import Foundation
import Lupine
import LupineTestServer
import Testing

/// The README's "Reachability" example, verbatim (the first test checks that each of its lines is
/// here, in order), run on this host; the CLI lines run in ``LupineReachabilityCommandTests`` and
/// the wait for connectivity in ``ConnectivityWaitTests``.
@Suite struct ReadmeReachabilityExampleTests {
    @Test func theReadmeExampleIsHereVerbatim() throws {
        let blocks = try #require(try ReadmeSection.swiftBlocks(under: "## Reachability"))
        let block = try #require(blocks.first)
        #expect(block.count > 10)
        let missing = try ReadmeSection.firstMissingLine(of: block, inFile: #filePath)
        #expect(missing == nil, "not here verbatim: \(missing ?? "")")
    }

    @Test func theReadmeExampleRuns() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }

        let reachability = try NetworkReachabilityManager(address: "127.0.0.1")
        try reachability.startMonitoring { status in
            print(status.localizedDescription)  // Reachable via WiFi
        }
        for await status in reachability.statusUpdates where status != .unknown {
            print(reachability.isReachable)  // true
            #expect(status.localizedDescription == "Reachable via WiFi")
            #expect(reachability.isReachable)
            break
        }

        // tasks started offline wait up to 10 s for the network, then fail with LupineError.notConnected
        let manager = HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:8080"))
        try manager.reachabilityManager.startMonitoring()  // NetworkReachabilityManager.shared
        manager.connectivityPolicy = .waitsForConnectivity(timeout: .seconds(10))
        #expect(manager.reachabilityManager === NetworkReachabilityManager.shared)
        // This host is online: the task runs at once.
        let response = try await manager.get(server.baseURL.absoluteString + "/get")
        #expect(response.head?.statusCode == 200)
        manager.invalidateSession(cancelingTasks: true)
    }
}
