import Foundation
import LupineTestServer
import LupineTestSupport
import NIOConcurrencyHelpers
import Testing

@testable import Lupine

/// `stale-if-error` (RFC 5861 §4) in the session's loop, over loopback: the request that would
/// validate or replace a stored response is sent elsewhere by the session's adapter (a failing
/// status of the counted endpoint, or a closed port) and the stored response stands in for the
/// failure when the directives allow it.
@Suite struct StaleIfErrorTests {
    /// Stores `key`'s response with `headers`, then asks again (with `request` fields) while the
    /// adapter sends that request to `failure` (retried `retries` times); the second completion.
    private static func afterFailure(
        _ server: LupineTestServer,
        _ transport: NIOTransport,
        _ key: String,
        _ headers: [(String, String)],
        failure: URL,
        retries: Int = 0,
        request: HTTPHeaders = [:]
    ) async -> (completion: TaskCompletion, rewriter: LaterAdaptationRewriter) {
        let manager = cachingManager(transport)
        let rewriter = LaterAdaptationRewriter(to: failure, retries: retries)
        manager.interceptor = rewriter
        let url = countedURL(server, key, headers)
        _ = await completion(of: Request(url: url), on: manager)
        return (await completion(of: Request(url: url, headers: request), on: manager), rewriter)
    }

    @Test func aFinalServerErrorDeliversTheStoredResponseOnceRetriesAreExhausted() async throws {
        try await withServerAndTransport { server, transport in
            for status in [500, 502, 503, 504] {
                let key = "sie-\(status)"
                let stored = [("Cache-Control", "max-age=0, stale-if-error=600"), ("ETag", "\"e\"")]
                let (second, rewriter) = await Self.afterFailure(server, transport, key, stored, failure: countedURL(server, key, status: status), retries: 1)
                #expect(second.cacheStatus == .stale, "\(status)")
                #expect(second.response?.statusCode == 200, "\(status)")
                #expect(second.servedCount == 1, "\(status)")
                #expect(second.error == nil, "\(status)")
                // The first try and its one retry were sent, then the retrier gave up.
                #expect(server.counted(key) == (3, 0), "\(status)")
                #expect(rewriter.asked == 2, "\(status)")
            }
            // Other errors are delivered as they are.
            let stored = [("Cache-Control", "max-age=0, stale-if-error=600"), ("ETag", "\"e\"")]
            let (notImplemented, _) = await Self.afterFailure(server, transport, "sie-501", stored, failure: countedURL(server, "sie-501", status: 501))
            #expect(notImplemented.cacheStatus == .miss)
            #expect(notImplemented.response?.statusCode == 501)
        }
    }

    @Test func aTransportErrorDeliversTheStoredResponseEvenWithoutAValidator() async throws {
        let closed = try ClosedPort()
        try await withServerAndTransport { server, transport in
            let failure = closed.url.appending(path: "gone")
            // No validator: stored only for stale-if-error, sent unconditionally.
            let (bare, _) = await Self.afterFailure(server, transport, "sie-bare", [("Cache-Control", "max-age=0, stale-if-error=600")], failure: failure, retries: 1)
            #expect(bare.cacheStatus == .stale)
            #expect(bare.servedCount == 1)
            #expect(bare.error == nil)
            // The request's own stale-if-error allows it too.
            let (asked, _) = await Self.afterFailure(
                server, transport, "sie-request", [("Cache-Control", "max-age=0"), ("ETag", "\"r\"")], failure: failure,
                request: ["Cache-Control": "stale-if-error=600"])
            #expect(asked.cacheStatus == .stale)
            #expect(asked.servedCount == 1)
            // Without the directive the failure is delivered.
            let (none, _) = await Self.afterFailure(server, transport, "sie-none", [("Cache-Control", "max-age=0"), ("ETag", "\"n\"")], failure: failure)
            guard case .transport? = none.error else {
                Issue.record("expected a transport error, got \(String(describing: none.error))")
                return
            }
        }
    }

    @Test func stricterDirectivesAndAnOldEntryDeliverTheFailure() async throws {
        try await withServerAndTransport { server, transport in
            let cases: [(key: String, headers: [(String, String)], request: HTTPHeaders)] = [
                ("sie-must", [("Cache-Control", "max-age=0, must-revalidate, stale-if-error=600"), ("ETag", "\"m\"")], [:]),
                ("sie-no-cache", [("Cache-Control", "no-cache, stale-if-error=600"), ("ETag", "\"c\"")], [:]),
                ("sie-request-no-cache", [("Cache-Control", "max-age=0, stale-if-error=600"), ("ETag", "\"q\"")], ["Cache-Control": "no-cache"]),
                // Stale by 1000 s, beyond the 600 s allowed.
                ("sie-too-old", [("Cache-Control", "max-age=0, stale-if-error=600"), ("Age", "1000"), ("ETag", "\"o\"")], [:]),
            ]
            for (key, headers, request) in cases {
                let (second, _) = await Self.afterFailure(server, transport, key, headers, failure: countedURL(server, key, status: 503), request: request)
                #expect(second.cacheStatus == .miss, "\(key)")
                #expect(second.response?.statusCode == 503, "\(key)")
            }
        }
    }

    @Test func anEndlessErrorBodyDoesNotHoldTheStoredResponseBack() async throws {
        try await withServerAndTransport { _, transport in
            let cache = HTTPCache(memoryCapacity: 1 << 20)
            let manager = cachingManager(transport, cache: cache)
            let port = try ClosedPort(silent: true)
            let url = port.url.appending(path: "page")
            let head = ResponseHead(status: .ok, headers: HTTPHeaders([("Cache-Control", "max-age=0, stale-if-error=600")]), url: url)
            await cache.store(CachedResponse(head: head, data: Array("stored".utf8)), for: Request(url: url))
            // A 503 promising 100 MB, 1 MB of it sent, then silence.
            port.answerOnceThenStall(with: Array("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 100000000\r\n\r\n".utf8) + [UInt8](repeating: 0x65, count: 1 << 20))
            let done = NIOLockedValueBox<TaskCompletion?>(nil)
            let request = Request(url: url, timeoutInterval: 600)
            let waiting = Task {
                let completion = await completion(of: request, on: manager)
                done.withLockedValue { $0 = completion }
            }
            try await waitUntil("the stored response is delivered without reading the error's body to its end") { done.withLockedValue { $0 != nil } }
            #expect(done.withLockedValue { $0?.cacheStatus } == .stale)
            #expect(done.withLockedValue { $0.map { String(decoding: $0.responseData, as: UTF8.self) } } == "stored")
            waiting.cancel()
        }
    }
}
