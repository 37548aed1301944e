import Foundation
import InMemoryTracing
import Lupine
import LupineTestServer
import Testing
import Tracing

/// The spans of ``SessionManager/tracer`` as swift-distributed-tracing's own test tracer
/// (`InMemoryTracer`, a real `Tracer` that keeps its spans and what it injected) records them, for
/// requests to the test server. That tracer propagates its context as `in-memory-trace-id` and
/// `in-memory-span-id` where an OpenTelemetry tracer writes `traceparent`: the session writes
/// whatever the tracer's injector gives.
@Suite struct SessionTracingTests {
    /// A session tracing into an in-memory tracer of its own.
    private func withTracedSession(_ body: (LupineTestServer, HTTPSessionManager, InMemoryTracer) async throws -> Void) async throws {
        try await withSessionManager { server, manager in
            let tracer = InMemoryTracer()
            manager.tracer = tracer
            try await body(server, manager, tracer)
        }
    }

    /// The one span the tracer finished.
    private func onlySpan(of tracer: InMemoryTracer, sourceLocation: SourceLocation = #_sourceLocation) throws -> FinishedInMemorySpan {
        let spans = tracer.finishedSpans
        #expect(spans.count == 1, sourceLocation: sourceLocation)
        return try #require(spans.first, sourceLocation: sourceLocation)
    }

    @Test func aSuccessIsAClientSpanWithTheConventionsAttributes() async throws {
        try await withTracedSession { server, manager, tracer in
            let response = try await manager.get("get?token=secret&page=2")
            let span = try self.onlySpan(of: tracer)
            #expect(span.operationName == "GET")
            #expect(span.kind == .client)
            #expect(span.parentSpanID == nil)
            let base = server.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            #expect(span.attributes.get("http.request.method") == .string("GET"))
            #expect(span.attributes.get("url.full") == .string("\(base)/get?token=REDACTED&page=REDACTED"))
            #expect(span.attributes.get("server.address") == .string(server.baseURL.host() ?? ""))
            #expect(span.attributes.get("server.port") == .int64(Int64(server.port)))
            #expect(span.attributes.get("http.response.status_code") == .int64(200))
            #expect(span.attributes.get("network.peer.address") == .string(server.baseURL.host() ?? ""))
            #expect(span.attributes.get("network.peer.port") == .int64(Int64(server.port)))
            #expect(span.attributes.get("network.protocol.version") == .string("1.1"))
            #expect(span.attributes.get("http.request.resend_count") == nil)
            #expect(span.attributes.get("error.type") == nil)
            #expect(span.status == nil)
            #expect(span.errors.isEmpty)

            // Injected with the tracer's injector, and sent: the server echoes the fields.
            #expect(tracer.performedContextInjections.map(\.values) == [[InMemoryTracer.traceIDKey: span.traceID, InMemoryTracer.spanIDKey: span.spanID]])
            let echoed = (response.value as? [String: any Sendable])?["headers"] as? [String: any Sendable]
            #expect(echoed?["In-Memory-Trace-Id"] as? String == span.traceID)
            #expect(echoed?["In-Memory-Span-Id"] as? String == span.spanID)
        }
    }

    @Test func a404IsAnErrorSpanOfItsStatus() async throws {
        try await withTracedSession { server, manager, tracer in
            await #expect(throws: LupineError.self) { _ = try await manager.get("status/404") }
            let span = try self.onlySpan(of: tracer)
            #expect(span.attributes.get("http.response.status_code") == .int64(404))
            #expect(span.attributes.get("error.type") == .string("404"))
            #expect(span.status?.code == .error)
            #expect(span.errors.isEmpty)
        }
    }

    @Test func aRefusedConnectionIsAnErrorSpanOfItsKind() async throws {
        let closed = try ClosedPort()
        try await withTracedSession { server, manager, tracer in
            await #expect(throws: LupineError.self) { _ = try await manager.get(closed.url.absoluteString + "/get") }
            let span = try self.onlySpan(of: tracer)
            #expect(span.attributes.get("error.type") == .string("connectionFailed"))
            #expect(span.attributes.get("server.port") == .int64(Int64(closed.port)))
            #expect(span.attributes.get("http.response.status_code") == nil)
            #expect(span.status?.code == .error)
            #expect(span.errors.count == 1)
        }
    }

    @Test func aRetryIsAnEventAndEachAttemptCarriesTheContext() async throws {
        try await withTracedSession { server, manager, tracer in
            manager.interceptor = RetryPolicy(retryLimit: 1, jitter: false)
            let recovered = try await manager.get("retry/traced/fail/1")  // a 503, then 200
            #expect(recovered.head?.statusCode == 200)
            let span = try self.onlySpan(of: tracer)
            #expect(span.attributes.get("http.response.status_code") == .int64(200))
            #expect(span.attributes.get("http.request.resend_count") == .int64(1))
            #expect(span.status == nil)
            let retries = span.events.filter { $0.name == "http.request.retry" }
            #expect(retries.count == 1)
            #expect(retries.first?.attributes.get("error.type") == .string("503"))
            #expect(retries.first?.attributes.get("http.request.resend_count") == .int64(1))
            let injected = tracer.performedContextInjections.map { $0.values[InMemoryTracer.spanIDKey] }
            #expect(injected == [span.spanID, span.spanID])
            #expect(server.attempts(forKey: "traced") == 2)
        }
    }

    @Test func redirectsAreEventsAndResends() async throws {
        try await withTracedSession { server, manager, tracer in
            _ = try await manager.get("redirect/2")
            let span = try self.onlySpan(of: tracer)
            #expect(span.events.filter { $0.name == "http.request.redirect" }.count == 2)
            #expect(span.attributes.get("http.request.resend_count") == .int64(2))
            #expect(span.attributes.get("http.response.status_code") == .int64(200))
        }
    }

    @Test func theSpanIsAChildOfTheSpanCurrentWhereTheTaskRuns() async throws {
        try await withTracedSession { server, manager, tracer in
            let parent = try await tracer.withSpan("checkout") { span in
                _ = try await manager.get("get")
                return span.spanContext
            }
            let client = try #require(tracer.finishedSpans.first { $0.kind == .client })
            #expect(client.traceID == parent.traceID)
            #expect(client.parentSpanID == parent.spanID)
        }
    }

    @Test func credentialsInTheURLNeverReachTheSpan() async throws {
        try await withTracedSession { server, manager, tracer in
            var components = try #require(URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false))
            components.user = "user"
            components.password = "hunter2"
            components.path = "/basic-auth/user/hunter2"
            components.query = "key=hunter2"
            let url = try #require(components.url)
            _ = try await manager.get(url.absoluteString)
            let span = try self.onlySpan(of: tracer)
            guard case .string(let full)? = span.attributes.get("url.full") else {
                Issue.record("no url.full")
                return
            }
            #expect(!full.contains("user:"))
            #expect(full.hasSuffix("/basic-auth/user/hunter2?key=REDACTED"))
        }
    }

    @Test func noSpanOnceTheTracerIsUnset() async throws {
        try await withTracedSession { server, manager, tracer in
            manager.tracer = nil
            #expect(manager.tracer == nil)
            _ = try await manager.get("get")
            #expect(tracer.finishedSpans.isEmpty)
            #expect(tracer.performedContextInjections.isEmpty)
        }
    }
}
