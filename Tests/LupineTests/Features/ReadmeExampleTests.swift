import Foundation
import Lupine
import LupineTestServer
import Testing

// The README's "Extension points" examples, verbatim (the first test checks that each line of
// each is here, in order), run
// against the test server. The types are the README's own.

struct Signer: RequestInterceptor {
    func adapt(_ request: Request, for context: AdaptContext) async throws -> Request {
        var signed = request
        signed.setValue("v1 attempt=\(context.retryCount)", forHTTPHeaderField: "X-Signature")
        return signed
    }
}

struct Token: AuthenticationCredential {
    var value: String
    var requiresRefresh: Bool { false }
}
struct TokenAuthenticator: Authenticator {
    func apply(_ token: Token, to request: inout Request) {
        request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization")
    }
    func refresh(_ token: Token) async throws -> Token {
        Token(value: "fresh")  // ask your token server here
    }
    func isRequest(_ request: Request, authenticatedWith token: Token) -> Bool {
        request.value(forHTTPHeaderField: "Authorization") == "Bearer \(token.value)"
    }
}

actor LastResponses: ResponseCache {
    private var kept: [URL: CachedResponse] = [:]
    func lookup(_ request: Request) -> CacheLookup { kept[request.url].map { .stale($0) } ?? .miss }
    func store(_ response: CachedResponse, for request: Request) { kept[request.url] = response }
}

final class RetryLog: EventMonitor {
    func task(_ task: SessionTask, didDecide decision: RetryDecision, for context: RetryContext) {
        print("\(context.request.url.path): attempt \(context.retryCount + 1) failed: \(context.error); \(decision)")
    }
}

@Suite struct ReadmeExampleTests {
    @Test func everyExtensionPointExampleOfTheREADMEIsHereVerbatim() throws {
        try ReadmeSection.expectExamples(under: "## Extension points", count: 7, inFile: #filePath)
    }

    @Test func adaptingAndRetrying() async throws {
        try await withSessionManager { server, manager in
            manager.interceptor = Signer()
            let signed = try await manager.get("headers")
            #expect(((signed.value as? [String: any Sendable])?["headers"] as? [String: any Sendable])?["X-Signature"] as? String == "v1 attempt=0")

            manager.interceptor = Interceptor(interceptors: [Signer(), RetryPolicy(retryLimit: 3, maximumDelay: .seconds(10))])
            let flaky = try await manager.get("retry/readme/fail/2")  // two 503s, then 200
            #expect(flaky.head?.statusCode == 200)
            #expect(server.attempts(forKey: "readme") == 3)
        }
    }

    @Test func refreshingAToken() async throws {
        try await withSessionManager { server, manager in
            manager.interceptor = AuthenticationInterceptor(authenticator: TokenAuthenticator(), credential: Token(value: "stale"))
            let me = try await manager.get("bearer/fresh")  // a 401 for "stale", one refresh, then 200
            #expect((me.value as? [String: any Sendable])?["authenticated"] as? Bool == true)
            #expect(server.attempts(forKey: "bearer-fresh") == 2)
        }
    }

    @Test func stayingOnOneHost() async throws {
        try await withSessionManager { server, manager in
            manager.redirectHandler = Redirector { task, next, _ in
                next.url.host == task.originalRequest.url.host ? next : nil  // never leave the first host
            }
            manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 200..<400))
            let away = try await manager.get("redirect-to?url=http://localhost:\(server.port)/get")
            #expect(away.head?.statusCode == 302)
            let home = try await manager.get("redirect-to?url=/get")
            #expect(home.head?.statusCode == 200)
        }
    }

    @Test func caching() async throws {
        try await withSessionManager { server, manager in
            manager.urlCache = LastResponses()
            manager.cachedResponseHandler = ResponseCacher { _, response in
                response.head.statusCode == 200 ? response : nil  // keep successes only
            }
            let online = try await manager.get("get")
            let offline = try await manager.response(
                for: Request(url: online.request.url, cachePolicy: .returnCacheDataDontLoad), serializer: JSONResponseSerializer())
            #expect(offline.data == online.data)
            #expect(offline.metrics == nil)
        }
    }

    @Test func cookiesFromAFile() async throws {
        try await withSessionManager { server, manager in
            let cookieFile = try temporaryFile(Array("127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc\n".utf8), name: "cookies.txt")
            defer { try? FileManager.default.removeItem(at: cookieFile.deletingLastPathComponent()) }
            let jar = CookieStorage()
            _ = try jar.importNetscapeFile(at: cookieFile)  // a file curl -c wrote; returns the lines it skipped
            manager.cookieStorage = jar
            let me = try await manager.get("cookies")  // sent with the file's cookies for this host
            #expect((me.value as? [String: any Sendable])?["cookies"] as? [String: String] == ["session": "abc"])
        }
    }

    @Test func watching() async throws {
        try await withSessionManager { server, manager in
            manager.eventMonitors = [RetryLog()]
            manager.interceptor = RetryPolicy(retryLimit: 1, jitter: false)
            let recovered = try await manager.get("retry/watched/fail/1")
            #expect(recovered.head?.statusCode == 200)
        }
    }
}
