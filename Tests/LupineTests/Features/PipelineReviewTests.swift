import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// Cases a review of the execution loop found: each over loopback against the test server.
@Suite struct PipelineReviewTests {
    @Test func everyRequestSentHasOneEntryInTheTransactionMetrics() async throws {
        try await withSessionManager { server, manager in
            manager.interceptor = ClosureRetrier { $0.retryCount == 0 ? .retry : .doNotRetry }
            // Each attempt: a redirect hop, then a 503.
            let done = await completion(of: Request(url: server.baseURL.appending("/redirect-to?url=/status/503")), on: manager)
            #expect(done.retryCount == 1)
            #expect(done.transactionMetrics.count == 4)
            let starts = done.transactionMetrics.compactMap(\.fetchStart)
            #expect(Set(starts.map { "\($0)" }).count == 4, "no request is counted twice")
        }
    }

    @Test func aCredentialTakenOffByARedirectIsNotRetriedForever() async throws {
        try await withSessionManager { server, manager in
            let authenticator = BearerAuthenticator { _ in BearerToken(token: "never") }
            manager.interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: BearerToken(token: "x"))
            // Another origin (localhost, not 127.0.0.1): the redirect drops Authorization, so
            // every attempt meets a 401 with a request not sent with the current credential.
            let url = server.baseURL.appending("/redirect-to?url=http://localhost:\(server.port)/bearer/x")
            let done = await completion(of: Request(url: url), on: manager)
            #expect(done.response?.statusCode == 401)
            #expect(done.retryCount == AuthenticationInterceptor<BearerAuthenticator>.RefreshWindow().maximumAttempts)
            #expect(authenticator.refreshes.all.isEmpty)
        }
    }

    @Test func aTasksOwnRedirectHookComesBeforeTheSessionsHandler() async throws {
        try await withSessionManager { server, manager in
            manager.redirectHandler = Redirector.follow
            var hooks = SessionHooks()
            hooks.willPerformRedirection = { _, _, _ in nil }
            let done: TaskCompletion = await withCheckedContinuation { continuation in
                manager.dataTask(with: Request(url: server.baseURL.appending("/redirect/1")), hooks: hooks) {
                    continuation.resume(returning: $0)
                }.resume()
            }
            #expect(done.response?.statusCode == 302)
        }
    }

    @Test func invalidatingTheSessionEndsAWaitForARefreshAtOnce() async throws {
        try await withSessionManager { server, manager in
            let gate = Gate()
            let authenticator = BearerAuthenticator { _ in
                await gate.wait()
                return BearerToken(token: "fresh")
            }
            let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: BearerToken(token: "stale"), refreshTimeout: .seconds(3600))
            manager.interceptor = interceptor
            let call = Task { try await manager.get("bearer/fresh") }
            try await waitUntil("the refresh started") { !authenticator.refreshes.all.isEmpty }
            // The async verb runs its task inline: only the task's handle can reach the wait.
            manager.invalidateSession(cancelingTasks: true)
            await expectSessionCancelled { try await call.value }
            await gate.open()
        }
    }
}
