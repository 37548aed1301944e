import Foundation
import Lupine
import LupineTestServer
import Testing

/// ``RedirectHandler``s: per session, per request, and the hook that came before them, over loopback.
@Suite struct RedirectHandlerTests {
    @Test func doNotFollowDeliversTheRedirectItself() async throws {
        try await withSessionManager { server, manager in
            manager.redirectHandler = Redirector.doNotFollow
            let done = await completion(
                of: Request(url: server.baseURL.appending("/redirect/2")), on: manager, serializer: HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 200..<400)))
            #expect(done.response?.statusCode == 302)
            #expect(done.redirectChain.isEmpty)
        }
    }

    @Test func aHandlerMayChangeTheNextRequestAndTheRequestsOwnComesFirst() async throws {
        try await withSessionManager { server, manager in
            let monitor = PipelineMonitor()
            manager.eventMonitors = [monitor]
            manager.hooks.willPerformRedirection = { _, _, _ in nil }
            manager.redirectHandler = Redirector { _, next, _ in
                var next = next
                next.setValue("session", forHTTPHeaderField: "X-Hop")
                return next
            }
            let followed = try await manager.response(for: Request(url: server.baseURL.appending("/redirect-to?url=/headers")), serializer: JSONResponseSerializer())
            let headers = (followed.value as? [String: any Sendable])?["headers"] as? [String: any Sendable]
            #expect(headers?["X-Hop"] as? String == "session")
            #expect(monitor.events.all.contains("redirect 302 /headers"))

            var own = Request(url: server.baseURL.appending("/redirect-to?url=/headers"))
            own.redirectHandler = Redirector.doNotFollow
            let stopped = await completion(of: own, on: manager, serializer: HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 200..<400)))
            #expect(stopped.response?.statusCode == 302)
        }
    }

    @Test func theHookStillDecidesWhenNoHandlerIsSet() async throws {
        try await withSessionManager { server, manager in
            manager.hooks.willPerformRedirection = { _, _, _ in nil }
            let done = await completion(
                of: Request(url: server.baseURL.appending("/redirect/1")), on: manager, serializer: HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 200..<400)))
            #expect(done.response?.statusCode == 302)
        }
    }

    @Test func aBasicChallengeIsAnsweredWithinTheAttemptAndReported() async throws {
        try await withSessionManager { server, manager in
            let monitor = PipelineMonitor()
            manager.eventMonitors = [monitor]
            manager.credential = Credential(user: "u", password: "p")
            let done = await completion(of: Request(url: server.baseURL.appending("/basic-auth/u/p")), on: manager)
            #expect(done.response?.statusCode == 200)
            #expect(done.transactionMetrics.count == 2)
            #expect(monitor.events.all == ["attempt 0", "challenge Basic", "complete"])
        }
    }
}
