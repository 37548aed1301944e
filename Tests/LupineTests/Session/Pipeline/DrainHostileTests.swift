import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// A thrown-away body, read to its end or stopped at ``drainLimit``, never leaves its bytes on a
/// connection that then serves another request (response smuggling): each request gets its own
/// answer, whatever the body's length around the limit and its framing.
@Suite struct DrainHostileTests {
    /// The session's drain limit (64 KiB), as the test server's redirects are sized around it.
    static let drainLimit = 64 * 1024

    @Test(arguments: [drainLimit - 1, drainLimit, drainLimit + 1, 4 * drainLimit], [false, true])
    func aDrainedRedirectBodyNeverReachesTheNextRequest(bytes: Int, chunked: Bool) async throws {
        try await withSessionManager { server, manager in
            // The target is on the fault listener too, so the redirect's connection may serve it.
            let hop = server.faultsBaseURL.appending("/bodied-redirect?to=/own-answer&bytes=\(bytes)&chunked=\(chunked)")
            let followed = await completion(of: Request(url: hop), on: manager)
            #expect(followed.redirectChain.count == 1)
            Self.expectOwnAnswer(followed)
            let next = await completion(of: Request(url: server.faultsBaseURL.appending("/next-answer")), on: manager)
            Self.expectOwnAnswer(next)
            if bytes <= Self.drainLimit {
                // Read to its end: the connection was kept and served both requests after it.
                Self.expectKept(server.connections.accepted)
            }
        }
    }

    /// One connection served every request: the drained body was read to its end. A drain is
    /// also cut after `RequestExecutor.drainTime` (1 s), so on a machine loaded enough that 64
    /// KiB take longer (the full suite met it once) the connection is closed instead: a time
    /// bound, recorded as a known intermittent issue rather than asserted.
    static func expectKept(_ accepted: Int) {
        withKnownIssue("a drain cut by its 1 s bound on a loaded machine closes the connection", isIntermittent: true) {
            #expect(accepted == 1)
        }
    }

    @Test(arguments: [drainLimit - 1, drainLimit, drainLimit + 1, 4 * drainLimit], [false, true])
    func aDrainedChallengeBodyNeverReachesTheNextRequest(bytes: Int, chunked: Bool) async throws {
        try await withSessionManager { server, manager in
            manager.credential = Credential(user: "u", password: "p")
            // Answered with the credential, the challenge's path is a 404 like any other.
            let challenged = server.faultsBaseURL.appending("/bodied-challenge?bytes=\(bytes)&chunked=\(chunked)")
            Self.expectOwnAnswer(await completion(of: Request(url: challenged), on: manager))
            Self.expectOwnAnswer(await completion(of: Request(url: server.faultsBaseURL.appending("/next-answer")), on: manager))
            if bytes <= Self.drainLimit {
                Self.expectKept(server.connections.accepted)
            }
        }
    }

    /// A redirect whose body never ends costs its connection: closed, not left open nor
    /// pooled, and the next request to that listener gets its own answer on a new one.
    @Test(.timeLimit(.minutes(5)))
    func anEndlessRedirectBodyClosesItsConnection() async throws {
        try await withSessionManager { server, manager in
            let endless = server.faultsBaseURL.appending("/endless-redirect?to=/own-answer")
            Self.expectOwnAnswer(await completion(of: Request(url: endless), on: manager))
            Self.expectOwnAnswer(await completion(of: Request(url: server.faultsBaseURL.appending("/next-answer")), on: manager))
            // The endless one closed; its redirect's target and the next request shared one.
            try await waitUntil("the endless body's connection is closed") { server.connections.open == 1 }
            #expect(server.connections.accepted == 2)
        }
    }

    /// A retried `503` whose body trickles (one byte a second for a minute, far below the drain's
    /// 64 KiB) is read for at most the drain's second, then its connection is closed: the retry
    /// goes out on a new connection at once, not on the same one when the body ends.
    @Test(.timeLimit(.minutes(5)))
    func aTricklingBodyBeforeARetryIsDroppedAfterASecond() async throws {
        try await withSessionManager { server, manager in
            struct RetryTheTrickleOnce: RequestInterceptor {
                let fast: URL
                func adapt(_ request: Request, for context: AdaptContext) async throws -> Request {
                    var request = request
                    if context.retryCount > 0 { request.url = self.fast }
                    return request
                }
                func retry(_ context: RetryContext) async throws -> RetryDecision {
                    context.retryCount == 0 ? .retry : .doNotRetry
                }
            }
            let trickle = server.baseURL.appending("/drip?duration=60&numbytes=60&code=503")
            manager.interceptor = RetryTheTrickleOnce(fast: server.baseURL.appending("/get"))
            let done = await completion(of: Request(url: trickle), on: manager)
            #expect(done.response?.statusCode == 200, "\(String(describing: done.error))")
            #expect(server.connections.accepted == 2, "the trickling body's connection was dropped, not drained")
        }
    }

    /// The fault listener's 404, whole: no byte of an earlier body in front of it.
    private static func expectOwnAnswer(_ done: TaskCompletion) {
        #expect(done.response?.statusCode == 404, "\(String(describing: done.error))")
        #expect(String(decoding: done.responseData, as: UTF8.self) == "No such fault endpoint.\n")
    }
}
