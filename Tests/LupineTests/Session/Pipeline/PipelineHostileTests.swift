import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// Hostile uses of the execution loop's points: bodies that can be sent once meeting a redirect
/// or a challenge, a task suspended while it waits to retry, a cache keyed on the request.
@Suite(.timeLimit(.minutes(5))) struct PipelineHostileTests {
    /// A POST whose body is one stream, made once: the second call of `chunks` finds it used up.
    private static func oneShotPost(to url: URL) -> Request {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ByteBuffer.self)
        continuation.yield(ByteBuffer(string: "the only copy"))
        continuation.finish()
        return Request(url: url, method: .POST, body: .stream(length: nil) { stream })
    }

    @Test func aStreamBodyIsNeverSentAgainEmptyByA307Or308() async throws {
        try await withSessionManager { server, manager in
            for status in [307, 308] {
                let target = server.baseURL.appending("/redirect-to?url=/anything&status_code=\(status)")
                let done = await completion(of: Self.oneShotPost(to: target), on: manager)
                guard case .redirectFailed(.bodyNotReplayable(let url))? = done.error else {
                    Issue.record("a \(status) must not resend a used-up stream, got \(String(describing: done.error)) with \(String(decoding: done.responseData, as: UTF8.self))")
                    continue
                }
                #expect(url.path == "/anything")
                #expect(done.error?.description.contains("can be sent only once") == true)
            }
            // A body in memory is sent again, whole.
            var bytes = Request(url: server.baseURL.appending("/redirect-to?url=/anything&status_code=307"), method: .POST)
            bytes.body = .bytes(Array("the only copy".utf8))
            let done = await completion(of: bytes, on: manager, serializer: JSONResponseSerializer())
            #expect((done.serializedObject as? [String: any Sendable])?["data"] as? String == "the only copy")
        }
    }

    /// A redirect whose body never ends is followed once a little of it is read: the body is
    /// not read until a timeout comes (and with none, for ever).
    @Test(.timeLimit(.minutes(5)))
    func aRedirectWithAnEndlessBodyIsFollowedWithoutReadingItAll() async throws {
        try await withSessionManager { server, manager in
            let target = server.baseURL.appending(path: "get").absoluteString
            var request = Request(url: server.faultsBaseURL.appending("/endless-redirect?to=\(target)"))
            request.timeoutInterval = nil
            let done = await completion(of: request, on: manager, serializer: JSONResponseSerializer())
            #expect(done.error == nil, "\(String(describing: done.error))")
            #expect(done.response?.statusCode == 200)
            #expect(done.redirectChain.count == 1)
            // The hop read its drain limit and what the socket held, not the gigabyte on offer.
            let hop = try #require(done.transactionMetrics.first)
            #expect(hop.bodyBytesReceived < 8 << 20, "read \(hop.bodyBytesReceived) bytes of the endless body")
        }
    }

    /// A redirect whose thrown-away body is cut short (the server closes mid-body) is still
    /// followed, as curl follows it: the lost body only costs its connection, not the request.
    @Test(.timeLimit(.minutes(5)))
    func aRedirectWhoseBodyIsCutShortIsStillFollowed() async throws {
        try await withSessionManager { server, manager in
            let target = server.baseURL.appending(path: "get").absoluteString
            let request = Request(url: server.faultsBaseURL.appending("/cut-redirect?to=\(target)"))
            let done = await completion(of: request, on: manager, serializer: JSONResponseSerializer())
            #expect(done.error == nil, "\(String(describing: done.error))")
            #expect(done.response?.statusCode == 200)
            #expect(done.redirectChain.count == 1)
        }
    }

    @Test func aStreamBodyIsNeverSentAgainEmptyToAnswerABasicChallenge() async throws {
        try await withSessionManager { server, manager in
            manager.credential = Credential(user: "u", password: "p")
            var request = Self.oneShotPost(to: server.baseURL.appending("/basic-auth/u/p"))
            request.method = .GET
            let done = await completion(of: request, on: manager)
            // The challenge is delivered as it came: answering it would send the body empty.
            #expect(done.response?.statusCode == 401)
            #expect(done.transactionMetrics.count == 1)
        }
    }

    @Test func aTaskSuspendedWhileWaitingToRetrySendsNothingUntilResumed() async throws {
        /// Suspends the task as soon as the retry is decided, before its wait starts.
        final class Suspender: EventMonitor {
            func task(_ task: SessionTask, didDecide decision: RetryDecision, for context: RetryContext) {
                if context.retryCount == 0 { task.suspend() }
            }
        }
        try await withSessionManager { server, manager in
            manager.eventMonitors = [Suspender()]
            manager.interceptor = ClosureRetrier { _ in .retryAfter(.milliseconds(20)) }
            let finished = AsyncStream.makeStream(of: TaskCompletion.self)
            let task = manager.dataTask(with: Request(url: server.baseURL.appending("/retry/suspended/fail/2"))) {
                finished.continuation.yield($0)
            }
            task.resume()
            // The first attempt answered and the retry decided (which suspends the task): on a
            // loaded machine that can take longer than the watch below, and a resume before the
            // suspension would leave the task suspended for good (the "lost wakeup" of session 17
            // was this test's race, not the library's).
            try await waitUntil("the first attempt is answered and the task suspended") {
                server.attempts(forKey: "suspended") == 1 && task.state == .suspended
            }
            // Watching for something that must not happen: ten times the retry delay, bounded.
            for _ in 0..<20 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(server.attempts(forKey: "suspended") == 1)
            task.resume()
            // Bounded, so that a task that never completes fails the test rather than hanging it.
            let done: TaskCompletion? = await withTaskGroup(of: TaskCompletion?.self) { group in
                group.addTask {
                    var completions = finished.stream.makeAsyncIterator()
                    return await completions.next()
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(60))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let done else {
                Issue.record("the resumed task did not complete within 60 s")
                task.cancel()
                return
            }
            #expect(done.error == nil)
            #expect(server.attempts(forKey: "suspended") == 3)
        }
    }

    @Test func theCacheIsOfferedTheResponseForTheRequestItWasAskedAbout() async throws {
        /// Records the URLs it is asked about and given responses for; holds nothing.
        final class KeyRecorder: ResponseCache {
            let keys = Recorder<String>()
            func lookup(_ request: Request) async -> CacheLookup {
                self.keys.append("lookup \(request.url.absoluteString)")
                return .miss
            }
            func store(_ response: CachedResponse, for request: Request) async {
                self.keys.append("store \(request.url.absoluteString)")
            }
        }
        try await withSessionManager { server, manager in
            let cache = KeyRecorder()
            manager.urlCache = cache
            // A signing adapter: each attempt's URL differs, as a signature with a time in it would.
            let signatures = NIOLockedValueBox(0)
            manager.interceptor = ClosureAdapter { request, _ in
                var request = request
                let signature = signatures.withLockedValue {
                    $0 += 1; return $0
                }
                request.url = request.url.appending("?signature=\(signature)")
                return request
            }
            let url = server.baseURL.appending("/get")
            #expect(await completion(of: Request(url: url), on: manager).error == nil)
            #expect(cache.keys.all == ["lookup \(url.absoluteString)", "store \(url.absoluteString)"])
        }
    }

    /// A token whose refresh takes far longer than any test; it says when it starts.
    private struct EndlessRefresh: Authenticator {
        struct Token: AuthenticationCredential {
            var requiresRefresh: Bool { true }
        }
        let started: AsyncStream<Void>.Continuation

        func apply(_ credential: Token, to request: inout Request) {}
        func refresh(_ credential: Token) async throws -> Token {
            self.started.yield()
            try await Task.sleep(for: .seconds(300))
            return credential
        }
        func isRequest(_ request: Request, authenticatedWith credential: Token) -> Bool { true }
    }

    /// Awaits `path` through the async API (the task runs inline, in this Swift task) on a
    /// fresh session that `configure` sets up with an extension that signals the continuation
    /// once it starts waiting; invalidates the session then, and returns the task's error and
    /// how long it took in all.
    private static func invalidating(
        _ path: String,
        onceStarted configure: (HTTPSessionManager, AsyncStream<Void>.Continuation) -> Void
    ) async throws -> (LupineError?, Duration) {
        try await withSessionManager { server, manager in
            let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
            configure(manager, startedContinuation)
            let request = Request(url: server.baseURL.appending(path))
            async let failure: (LupineError?, Duration) = {
                let begun = ContinuousClock.now
                do {
                    _ = try await manager.response(for: request, serializer: HTTPResponseSerializer())
                    return (nil, .now - begun)
                } catch {
                    return (error as? LupineError, .now - begun)
                }
            }()
            var starts = started.makeAsyncIterator()
            await starts.next()
            manager.invalidateSession(cancelingTasks: true)
            return await failure
        }
    }

    @Test func invalidatingTheSessionEndsAnAwaitedTaskWaitingForARefreshOrARetrier() async throws {
        let refreshing = try await Self.invalidating("/get") { manager, started in
            manager.interceptor = AuthenticationInterceptor(
                authenticator: EndlessRefresh(started: started),
                credential: EndlessRefresh.Token(),
                refreshTimeout: .seconds(300)
            )
        }
        let retrying = try await Self.invalidating("/status/503") { manager, started in
            manager.interceptor = ClosureRetrier { _ in
                started.yield()
                try await Task.sleep(for: .seconds(300))
                return .retry
            }
        }
        for (error, took) in [refreshing, retrying] {
            #expect(error?.description == LupineError.cancelled.description)
            // Far below the refresh's timeout and the retrier's wait.
            #expect(took < .seconds(120))
        }
    }

    /// A redirect handler that takes far longer than any test once it starts, and says when it does.
    private struct SlowRedirectHandler: RedirectHandler {
        let started: AsyncStream<Void>.Continuation

        func task(_ task: SessionTask, willBeRedirectedTo request: Request, for response: ResponseHead) async -> Request? {
            self.started.yield()
            try? await Task.sleep(for: .seconds(300))
            return request
        }
    }

    // A cache and a cached-response handler are called in the task itself, to spare every
    // request a hop to another Swift task (see ResponseCache): only the redirect handler is here.
    @Test func invalidatingTheSessionEndsAnAwaitedTaskWaitingForARedirectHandler() async throws {
        let (_, took) = try await Self.invalidating("/redirect/1") { manager, started in
            manager.redirectHandler = SlowRedirectHandler(started: started)
        }
        #expect(took < .seconds(120))
    }
}
