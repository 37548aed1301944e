import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// A session that waits for connectivity: a task started while its reachability manager says not
/// reachable waits for the network (here: a namespace's default route) up to the timeout, then
/// fails with `notConnected`; the request itself goes to a loopback server in the host's namespace.
@Suite(.enabled(if: NetworkNamespace.isSupported, "network namespaces cannot be created here (needs root and ip netns)"))
struct ConnectivityWaitTests {
    /// Runs `body` with a session whose reachability manager watches a namespace without a
    /// default route (so says not reachable), under `policy`.
    private static func offline(
        _ policy: ConnectivityPolicy,
        _ body: (NetworkNamespace, NetworkReachabilityManager, HTTPSessionManager) async throws -> Void
    ) async throws {
        let namespace = try NetworkNamespace(defaultRoute: false)
        defer { namespace.delete() }
        let reachability = namespace.manager(.anyAddress)
        let stream = reachability.statusUpdates
        try reachability.startMonitoring()
        #expect(await firstKnownStatus(of: stream) == .notReachable)
        try await withSessionManager { _, manager in
            #expect(manager.reachabilityManager === NetworkReachabilityManager.shared)
            #expect(manager.connectivityPolicy == .startsImmediately)
            manager.reachabilityManager = reachability
            manager.connectivityPolicy = policy
            try await body(namespace, reachability, manager)
        }
    }

    @Test func aTaskStartedOfflineFailsWithNotConnectedAfterTheTimeout() async throws {
        try await Self.offline(.waitsForConnectivity(timeout: .milliseconds(300))) { _, _, manager in
            let started = ContinuousClock.now
            await #expect {
                _ = try await manager.get("/get")
            } throws: { error in
                guard case LupineError.notConnected(waited: .milliseconds(300)) = error else { return false }
                return (error as? LupineError)?.description == "the network is not reachable and did not come back within 0.3 seconds; check the connection and try again"
            }
            let waited = ContinuousClock.now - started
            #expect(waited >= .milliseconds(300) && waited < .seconds(60), "\(waited)")
        }
    }

    @Test func aTaskStartedOfflineRunsWhenTheNetworkComesBack() async throws {
        try await Self.offline(.waitsForConnectivity(timeout: .seconds(30))) { namespace, reachability, manager in
            let listening = reachability.statusStreamCount
            let request = Task { try await manager.get("/get") }
            // Once the task listens for the network to come back, bring it back.
            try await waitUntil(timeout: .seconds(60), "the task waits") { reachability.statusStreamCount > listening }
            try namespace.addDefaultRoute()
            let response = try await request.value
            #expect(response.head?.statusCode == 200)
        }
    }

    @Test func aNegativeTimeoutFailsAtOnce() async throws {
        try await Self.offline(.waitsForConnectivity(timeout: .seconds(Int64.min))) { _, _, manager in
            await #expect {
                _ = try await manager.get("/get")
            } throws: { error in
                guard case LupineError.notConnected = error else { return false }
                return true
            }
        }
    }

    @Test func withoutThePolicyATaskStartsWhateverTheStatus() async throws {
        try await Self.offline(.startsImmediately) { _, _, manager in
            _ = try await manager.get("/get")
        }
    }

    @Test func aWaitingTaskCancelledFailsAsCancelled() async throws {
        // However long the timeout.
        try await Self.offline(.waitsForConnectivity(timeout: .seconds(Int64.max))) { _, reachability, manager in
            let listening = reachability.statusStreamCount
            let request = Task { try await manager.get("/get") }
            try await waitUntil(timeout: .seconds(60), "the task waits") { reachability.statusStreamCount > listening }
            request.cancel()
            await #expect {
                _ = try await request.value
            } throws: { error in
                guard case LupineError.cancelled = error else { return false }
                return true
            }
            #expect(reachability.statusStreamCount == listening, "the wait stopped listening")
        }
    }
}
