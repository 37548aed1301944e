import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

@testable import Lupine

/// The session layer on a pool of one connection, its calls cancelled at random moments: while
/// queued, between the steps of a redirect chain (the cancellation handle moving from step to
/// step), and while the server holds the answer back. Every call ends, a cancelled one with
/// `cancelled`, and the pool ends idle.
@Suite(.timeLimit(.minutes(5))) struct SessionLeaseHostileTests {
    enum Behaviour: CaseIterable {
        case redirects, cancelRedirects, cancelDelayed, cancelThroughTask
    }

    @Test func concurrentSessionCallsCancelledAtRandomAllEnd() async throws {
        let server = try await LupineTestServer.start(LupineTestServer.Configuration().lenient)
        let configuration = TransportConfiguration(maximumConnectionsPerHost: 1, connectTimeout: .seconds(60))
        let manager = HTTPSessionManager(baseURL: server.baseURL, configuration: configuration)
        try await running {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for caller in 0..<10 {
                    group.addTask {
                        var random = SplitMix64(seed: UInt64(caller + 7) &* 0x9E37_79B9)
                        for _ in 0..<8 {
                            let behaviour = Behaviour.allCases[Int(random.next() % UInt64(Behaviour.allCases.count))]
                            await Self.run(behaviour, yields: Int(random.next() % 8), manager: manager)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let transport = try #require(manager.transport as? NIOTransport)
            try await waitUntil(timeout: .seconds(60), "the pool's connection is idle") {
                transport.connectionPoolStatistics().allSatisfy { $0.open == $0.idle }
            }
            let response = try await manager.get("/get")
            #expect(response.head?.status.code == 200)
        } thenAlways: {
            manager.invalidateSession(cancelingTasks: true)
            await server.stop()
        }
    }

    private static func run(_ behaviour: Behaviour, yields: Int, manager: HTTPSessionManager) async {
        // A held-back answer (30 s) that is still answered means its cancel was lost.
        let tag = UUID().uuidString
        let route = behaviour == .cancelDelayed || behaviour == .cancelThroughTask ? "/delay/30" : "/redirect/3"
        let path = "\(route)?tag=\(tag)"
        let call = Task { try await manager.get(path) }
        for _ in 0..<yields { await Task.yield() }
        switch behaviour {
        case .redirects:
            break
        case .cancelRedirects, .cancelDelayed:
            call.cancel()
        case .cancelThroughTask:
            // The session's own task, found by its URL, cancelled through the session.
            try? await waitUntil(timeout: .seconds(60), "the call's task exists") {
                manager.tasks.contains { $0.originalRequest.url.query?.contains(tag) == true }
            }
            manager.tasks.first { $0.originalRequest.url.query?.contains(tag) == true }?.cancel()
        }
        switch await call.result {
        case .success(let response):
            let mayAnswer = behaviour == .redirects || behaviour == .cancelRedirects
            #expect(mayAnswer, "\(behaviour): a cancelled call answered \(String(describing: response.head?.status))")
        case .failure(LupineError.cancelled):
            #expect(behaviour != .redirects, "an uncancelled call was cancelled")
        case .failure(let error):
            Issue.record("\(behaviour): \(error)")
        }
    }
}
