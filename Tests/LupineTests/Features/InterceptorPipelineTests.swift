import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

/// The adaptation and retry points of the execution loop, with interceptors written here, over
/// loopback against the test server.
@Suite struct InterceptorPipelineTests {
    @Test func adaptersRunOnEveryAttemptTheRequestsOwnFirst() async throws {
        try await withSessionManager { server, manager in
            let monitor = PipelineMonitor()
            manager.eventMonitors = [monitor]
            manager.interceptor = ClosureAdapter { request, _ in
                var request = request
                request.setValue((request.value(forHTTPHeaderField: "X-Order") ?? "") + "session", forHTTPHeaderField: "X-Order")
                return request
            }
            var request = Request(url: server.baseURL.appending("/headers"))
            request.interceptor = ClosureAdapter { request, context in
                var request = request
                request.setValue("request\(context.retryCount),", forHTTPHeaderField: "X-Order")
                return request
            }
            let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
            let headers = (response.value as? [String: any Sendable])?["headers"] as? [String: any Sendable]
            #expect(headers?["X-Order"] as? String == "request0,session")
            #expect(monitor.events.all == ["adapt", "attempt 0", "complete"])
        }
    }

    @Test func anAdapterThatThrowsFailsTheTaskAndSendsNothing() async throws {
        let refused = try ClosedPort()
        let manager = SessionManager(configuration: TransportConfiguration())
        defer { manager.invalidateSession(cancelingTasks: true) }
        let monitor = PipelineMonitor()
        manager.eventMonitors = [monitor]
        manager.interceptor = ClosureAdapter { _, _ in throw OwnError(name: "unsigned") }
        let done = await completion(of: Request(url: refused.url.appending("/get")), on: manager)
        guard case .requestAdaptationFailed(let underlying as OwnError)? = done.error else {
            Issue.record("expected the adapter's error, got \(String(describing: done.error))")
            return
        }
        #expect(underlying == OwnError(name: "unsigned"))
        #expect(done.error?.description.contains("adapter failed") == true)
        // A refused connection would have said so: nothing was sent.
        #expect(monitor.events.all == ["complete"])
        #expect(done.transactionMetrics.isEmpty)

        manager.interceptor = ClosureAdapter { _, _ in throw LupineError.invalidURL("signed") }
        let lupine = await completion(of: Request(url: refused.url.appending("/get")), on: manager)
        guard case .invalidURL("signed")? = lupine.error else {
            Issue.record("a LupineError from an adapter is reported as itself, got \(String(describing: lupine.error))")
            return
        }
    }

    @Test func aRetrierSendsAFailedStatusAgainAndTheMetricsShowEachAttempt() async throws {
        try await withSessionManager { server, manager in
            let monitor = PipelineMonitor()
            manager.eventMonitors = [monitor]
            let retrier = ClosureRetrier { context in
                #expect(context.response?.statusCode == 503)
                #expect(context.request.url.path == "/status/503")
                return context.retryCount < 2 ? .retry : .doNotRetry
            }
            manager.interceptor = retrier
            let done = await completion(of: Request(url: server.baseURL.appending("/status/503")), on: manager)
            guard case .responseValidationFailed(.unacceptableStatusCode(503, _, _, _))? = done.error else {
                Issue.record("expected the last 503, got \(String(describing: done.error))")
                return
            }
            #expect(done.retryCount == 2)
            #expect(done.transactionMetrics.count == 3)
            #expect(done.transactionMetrics.allSatisfy { $0.responseStart != nil })
            #expect(retrier.asked.withLockedValue { $0 } == 3)
            #expect(monitor.events.all == ["adapt", "attempt 0", "retry 0", "adapt", "attempt 1", "retry 1", "adapt", "attempt 2", "no-retry 2", "complete"])
        }
    }

    @Test func aTransportErrorIsRetriedAndTheNextAttemptCanSucceed() async throws {
        let refused = try ClosedPort()
        try await withSessionManager { server, manager in
            // The first attempt goes to a refused port, the retry to the server.
            manager.interceptor = Interceptor(
                adapters: [
                    ClosureAdapter { request, context in
                        var request = request
                        request.url = (context.retryCount == 0 ? refused.url : server.baseURL).appending("/get")
                        return request
                    }
                ],
                retriers: [
                    ClosureRetrier { _ in .doNotRetry },
                    ClosureRetrier { context in
                        guard case .transport = context.error, context.response == nil else { return .doNotRetry }
                        return .retry
                    },
                ]
            )
            let done = await completion(of: Request(url: server.baseURL.appending("/get")), on: manager)
            #expect(done.error == nil)
            #expect(done.response?.statusCode == 200)
            #expect(done.retryCount == 1)
        }
    }

    @Test func aRetrierThatThrowsOrFailsEndsTheTaskWithItsErrorAndTheOriginal() async throws {
        try await withSessionManager { server, manager in
            for retrier in [ClosureRetrier { _ in throw OwnError(name: "thrown") }, ClosureRetrier { _ in .doNotRetryWithError(OwnError(name: "thrown")) }] {
                manager.interceptor = retrier
                let done = await completion(of: Request(url: server.baseURL.appending("/status/500")), on: manager)
                guard case .requestRetryFailed(let underlying as OwnError, .responseValidationFailed(.unacceptableStatusCode(500, _, _, _)))? = done.error else {
                    Issue.record("expected the retrier's error with the 500, got \(String(describing: done.error))")
                    continue
                }
                #expect(underlying.name == "thrown")
                #expect(done.retryCount == 0)
            }
        }
    }

    @Test func aNegativeDelayIsNoWait() async throws {
        try await withSessionManager { server, manager in
            manager.interceptor = ClosureRetrier { context in context.retryCount == 0 ? .retryAfter(.seconds(-30)) : .doNotRetry }
            let done = await completion(of: Request(url: server.baseURL.appending("/status/502")), on: manager)
            #expect(done.retryCount == 1)
        }
    }

    @Test func cancellingDuringAnEnormousDelayEndsTheTaskAtOnceWithNoFurtherAttempt() async throws {
        try await withSessionManager { server, manager in
            let monitor = PipelineMonitor()
            manager.eventMonitors = [monitor]
            manager.interceptor = ClosureRetrier { _ in .retryAfter(.seconds(1_000_000_000)) }
            let completions = Recorder<TaskCompletion>()
            let task = manager.dataTask(with: Request(url: server.baseURL.appending("/status/503"))) { completions.append($0) }
            task.resume()
            try await waitUntil("the retrier decided") { monitor.events.all.contains("retry-after 0") }
            task.cancel()
            try await waitUntil("the task completes") { !completions.all.isEmpty }
            guard case .cancelled? = completions.all.first?.error else {
                Issue.record("expected a cancel, got \(String(describing: completions.all.first?.error))")
                return
            }
            #expect(monitor.events.all == ["adapt", "attempt 0", "retry-after 0", "complete"])
        }
    }

    @Test func cancellingTheAwaitingSwiftTaskDuringADelayEndsItToo() async throws {
        try await withSessionManager { server, manager in
            let monitor = PipelineMonitor()
            manager.eventMonitors = [monitor]
            manager.interceptor = ClosureRetrier { _ in .retryAfter(.seconds(3600)) }
            let call = Task { try await manager.response(for: Request(url: server.baseURL.appending("/status/503")), serializer: HTTPResponseSerializer()) }
            try await waitUntil("the retrier decided") { monitor.events.all.contains("retry-after 0") }
            call.cancel()
            await expectSessionCancelled { try await call.value }
            #expect(!monitor.events.all.contains("attempt 1"))
        }
    }

    @Test func aBodyThatCannotBeSentTwiceIsNeverPutToTheRetrier() async throws {
        try await withSessionManager { server, manager in
            let retrier = ClosureRetrier { _ in .retry }
            manager.interceptor = retrier
            let stream = Request(
                url: server.baseURL.appending("/status/503"),
                method: .PUT,
                body: .stream(length: 3) {
                    AsyncThrowingStream {
                        $0.yield(ByteBuffer(string: "abc")); $0.finish()
                    }
                }
            )
            let done = await completion(of: stream, on: manager)
            #expect(done.response?.statusCode == 503)
            #expect(done.retryCount == 0)
            #expect(retrier.asked.withLockedValue { $0 } == 0)

            // A 303 turns the next hop into a GET without a body, but a retry would send the
            // stream again: still not asked.
            let redirected = Request(
                url: server.baseURL.appending("/redirect-to?url=/status/503&status_code=303"),
                method: .POST,
                body: .stream(length: 3) {
                    AsyncThrowingStream {
                        $0.yield(ByteBuffer(string: "abc")); $0.finish()
                    }
                }
            )
            let afterRedirect = await completion(of: redirected, on: manager)
            #expect(afterRedirect.response?.statusCode == 503)
            #expect(afterRedirect.redirectChain.count == 1)
            #expect(retrier.asked.withLockedValue { $0 } == 0)

            let bytes = Request(url: server.baseURL.appending("/status/503"), method: .PUT, body: .bytes(Array("abc".utf8)))
            let retrierOfBytes = ClosureRetrier { $0.retryCount == 0 ? .retry : .doNotRetry }
            manager.interceptor = retrierOfBytes
            #expect(await completion(of: bytes, on: manager).retryCount == 1)
        }
    }

    @Test func successesAndCancelsAreNeverPutToTheRetrier() async throws {
        try await withSessionManager { server, manager in
            let retrier = ClosureRetrier { _ in .retry }
            manager.interceptor = retrier
            #expect(await completion(of: Request(url: server.baseURL.appending("/status/204")), on: manager).error == nil)
            #expect(await completion(of: Request(url: server.baseURL.appending("/status/302")), on: manager).retryCount == 0)
            let task = manager.dataTask(with: Request(url: server.baseURL.appending("/delay/5"))) { _ in }
            task.cancel()
            #expect(retrier.asked.withLockedValue { $0 } == 0)
        }
    }

    @Test func aCustomSerializersErrorIsReportedAsItself() async throws {
        struct Refusing: ResponseSerializer {
            var acceptableStatusCodes = IndexSet(integersIn: 200..<300)
            var acceptableContentTypes: Set<String>? = nil
            func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<Int> {
                SerializedResponse(value: nil, error: .responseSerializationFailed(.decodingFailed(reason: "not an Int")))
            }
        }
        try await withSessionManager { server, manager in
            do {
                _ = try await manager.response(for: Request(url: server.baseURL.appending("/get")), serializer: Refusing())
                Issue.record("expected the serializer's error")
            } catch LupineError.responseSerializationFailed(.decodingFailed(let reason)) {
                #expect(reason == "not an Int")
            }
        }
    }
}
