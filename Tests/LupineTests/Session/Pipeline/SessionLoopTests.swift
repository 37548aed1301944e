import Foundation
import Lupine
import LupineTestSupport
import NIOConcurrencyHelpers
import Testing

/// The session's loop on a ``ScriptedTransport``, with no socket: which requests a task sends,
/// in which order and with which fields, for redirects, retries, challenges, the cache, cookies,
/// adapters and timeouts. The loopback suites exercise the same rules over a real server.
@Suite struct SessionLoopTests {
    static let base = URL(string: "https://api.example.test/")

    static func session(_ transport: ScriptedTransport) -> HTTPSessionManager {
        let manager = HTTPSessionManager(baseURL: Self.base, transport: transport)
        manager.responseSerializer = HTTPResponseSerializer()
        return manager
    }

    static func redirect(_ status: HTTPResponseStatus, to location: String) -> ScriptedTransport.Step {
        .respond(status, headers: ["Location": location])
    }

    static let ok = ScriptedTransport.Step.respond(.ok, headers: ["Content-Type": "text/plain"], chunks: ["done"])

    static func failure(of body: () async throws -> Void) async -> LupineError? {
        do {
            try await body()
            return nil
        } catch let error as LupineError {
            return error
        } catch {
            Issue.record("not a LupineError: \(error)")
            return nil
        }
    }

    // MARK: Redirects

    @Test func aRelativeRedirectIsFollowedAndItsChainKept() async throws {
        let transport = ScriptedTransport([Self.redirect(.found, to: "/b?x=1"), Self.ok])
        let manager = Self.session(transport)
        let response = try await manager.get("a")
        #expect(response.data == Array("done".utf8))
        #expect(transport.sent.map(\.url.absoluteString) == ["https://api.example.test/a", "https://api.example.test/b?x=1"])
        #expect(response.redirectChain.map(\.absoluteString) == ["https://api.example.test/a"])
    }

    @Test func a303TurnsAPostIntoAGetWithoutBody() async throws {
        let transport = ScriptedTransport([Self.redirect(.seeOther, to: "/result"), Self.ok])
        _ = try await Self.session(transport).post("form", parameters: ["a": "1"])
        #expect(transport.sent.map(\.method) == [.POST, .GET])
        #expect(transport.sent.map(\.hasBody) == [true, false])
        #expect(transport.sent[1].headers["Content-Type"].isEmpty)
    }

    @Test(arguments: [HTTPResponseStatus.temporaryRedirect, .permanentRedirect])
    func a307Or308KeepsTheMethodAndBody(status: HTTPResponseStatus) async throws {
        let transport = ScriptedTransport([Self.redirect(status, to: "/elsewhere"), Self.ok])
        _ = try await Self.session(transport).post("form", parameters: ["a": "1"])
        #expect(transport.sent.map(\.method) == [.POST, .POST])
        #expect(transport.sent.map(\.hasBody) == [true, true])
    }

    @Test func aRedirectLoopFailsTyped() async throws {
        let transport = ScriptedTransport([Self.redirect(.found, to: "/b"), Self.redirect(.found, to: "/a")])
        let error = await Self.failure { _ = try await Self.session(transport).get("a") }
        guard case .redirectFailed(.loop(let url))? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(url.absoluteString == "https://api.example.test/a")
        #expect(transport.sent.count == 2)
    }

    @Test func theRedirectLimitHolds() async throws {
        let transport = ScriptedTransport { _, index in Self.redirect(.found, to: "/hop\(index + 1)") }
        let manager = Self.session(transport)
        manager.maximumRedirects = 2
        let error = await Self.failure { _ = try await manager.get("hop0") }
        guard case .redirectFailed(.tooManyRedirects(let limit))? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(limit == 2)
        #expect(transport.sent.count == 3)
    }

    @Test func aLocationThatIsNoURLFailsTyped() async throws {
        let transport = ScriptedTransport([Self.redirect(.found, to: "http://[::1")])
        let error = await Self.failure { _ = try await Self.session(transport).get("a") }
        guard case .redirectFailed(.invalidLocation)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(transport.sent.count == 1)
    }

    @Test func aRedirectToAnotherHostDropsTheAuthorization() async throws {
        let transport = ScriptedTransport([Self.redirect(.found, to: "https://other.example.test/x"), Self.ok])
        _ = try await Self.session(transport).get("a", headers: ["Authorization": "Bearer secret"])
        #expect(transport.sent[0].headers["Authorization"] == ["Bearer secret"])
        #expect(transport.sent[1].headers["Authorization"].isEmpty)
    }

    @Test func aRedirectHandlerThatDoesNotFollowDeliversTheRedirect() async throws {
        let transport = ScriptedTransport([Self.redirect(.found, to: "/b")])
        let manager = Self.session(transport)
        manager.redirectHandler = Redirector.doNotFollow
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: IndexSet(200..<400))
        let response = try await manager.get("a")
        #expect(response.head?.statusCode == 302)
        #expect(transport.sent.count == 1)
    }

    @Test func theRedirectHookChangesTheNextRequest() async throws {
        let transport = ScriptedTransport([Self.redirect(.found, to: "/b"), Self.ok])
        let manager = Self.session(transport)
        manager.hooks.willPerformRedirection = { _, _, next in
            var changed = next
            changed.headers.replaceOrAdd(name: "X-Hop", value: "2")
            return changed
        }
        _ = try await manager.get("a")
        #expect(transport.sent[1].headers["X-Hop"] == ["2"])
    }

    // MARK: Retries

    static func retrying(limit: Int = 2) -> RetryPolicy {
        RetryPolicy(retryLimit: limit, exponentialBackoffScale: .zero, jitter: false)
    }

    @Test func a503IsRetriedUntilItSucceeds() async throws {
        let transport = ScriptedTransport([.respond(.serviceUnavailable), Self.ok])
        let manager = Self.session(transport)
        manager.interceptor = Self.retrying()
        let response = try await manager.get("flaky")
        #expect(response.data == Array("done".utf8))
        #expect(transport.sent.count == 2)
    }

    @Test func retriesStopAtTheLimitAndTheLastAnswerIsDelivered() async throws {
        let transport = ScriptedTransport { _, _ in .respond(.serviceUnavailable) }
        let manager = Self.session(transport)
        manager.interceptor = Self.retrying(limit: 2)
        let error = await Self.failure { _ = try await manager.get("down") }
        guard case .responseValidationFailed(.unacceptableStatusCode(let code, _, _, _))? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(code == 503)
        #expect(transport.sent.count == 3)
    }

    @Test func aPostIsNotRetried() async throws {
        let transport = ScriptedTransport([.respond(.serviceUnavailable), Self.ok])
        let manager = Self.session(transport)
        manager.interceptor = Self.retrying()
        _ = await Self.failure { _ = try await manager.post("order", parameters: ["n": "1"]) }
        #expect(transport.sent.count == 1)
    }

    @Test func aConnectionFailureIsRetriedForAGet() async throws {
        let transport = ScriptedTransport([.fail(TransportError.connectionClosedBeforeResponse), Self.ok])
        let manager = Self.session(transport)
        manager.interceptor = Self.retrying()
        _ = try await manager.get("again")
        #expect(transport.sent.count == 2)
    }

    @Test func aRetryAfterOfZeroSecondsIsHonouredAt429() async throws {
        let transport = ScriptedTransport([.respond(.tooManyRequests, headers: ["Retry-After": "0"]), Self.ok])
        let manager = Self.session(transport)
        manager.interceptor = RetryPolicy(retryLimit: 1, retryableHTTPStatusCodes: [429], jitter: false)
        _ = try await manager.get("busy")
        #expect(transport.sent.count == 2)
    }

    @Test func aRetrierThatThrowsFailsTheTaskWithItsError() async throws {
        struct Refusal: Error {}
        struct Refusing: RequestInterceptor {
            func retry(_ context: RetryContext) async throws -> RetryDecision { throw Refusal() }
        }
        let transport = ScriptedTransport([.respond(.internalServerError)])
        let manager = Self.session(transport)
        manager.interceptor = Refusing()
        let error = await Self.failure { _ = try await manager.get("x") }
        guard case .requestRetryFailed(let underlying, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(underlying is Refusal)
    }

    /// `Task.sleep` traps on a delay past 2^63 ns: a retrier's delay of `Int64.max` seconds is
    /// waited as ``RetryDecision/maximumDelay``, which a cancel ends; every other delay a caller
    /// gives is waited within what `Task.sleep` takes (`sleepable`).
    @Test func aRetrierAskingForAnEndlessDelayWaitsUntilCancelled() async throws {
        struct Endless: RequestInterceptor {
            let asked: NIOLockedValueBox<Bool>
            func retry(_ context: RetryContext) async throws -> RetryDecision {
                self.asked.withLockedValue { $0 = true }
                return .retryAfter(.seconds(Int64.max))
            }
        }
        let asked = NIOLockedValueBox(false)
        let transport = ScriptedTransport([.respond(.serviceUnavailable)])
        let manager = Self.session(transport)
        manager.interceptor = Endless(asked: asked)
        let request = Task { await Self.failure { _ = try await manager.get("x") } }
        try await waitUntil("the retrier is asked") { asked.withLockedValue { $0 } }
        request.cancel()
        let error = await request.value
        guard case .cancelled? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(transport.sent.count == 1)
        #expect(Duration.seconds(Int64.max).sleepable == .seconds(Int64(Int32.max)) && Duration.seconds(-1).sleepable == .zero)
    }

    // MARK: Challenges

    static let challenge = ScriptedTransport.Step.respond(.unauthorized, headers: ["WWW-Authenticate": #"Basic realm="lupine""#])

    @Test func theSessionsCredentialAnswersABasicChallenge() async throws {
        let transport = ScriptedTransport([Self.challenge, Self.ok])
        let manager = Self.session(transport)
        manager.credential = Credential(user: "alice", password: "s3cret")
        _ = try await manager.get("private")
        #expect(transport.sent[0].headers["Authorization"].isEmpty)
        #expect(transport.sent[1].headers["Authorization"] == [Credential(user: "alice", password: "s3cret").basicAuthorizationHeader])
    }

    @Test func theChallengeHookAnswersWithItsCredential() async throws {
        let transport = ScriptedTransport([Self.challenge, Self.ok])
        let manager = Self.session(transport)
        let asked = NIOLockedValueBox<[String?]>([])
        manager.hooks.didReceiveChallenge = { _, challenge in
            asked.withLockedValue { $0.append(challenge.realm) }
            return .useCredential(Credential(user: "bob", password: "pw"))
        }
        _ = try await manager.get("private")
        #expect(asked.withLockedValue { $0 } == ["lupine"])
        #expect(transport.sent[1].headers["Authorization"] == [Credential(user: "bob", password: "pw").basicAuthorizationHeader])
    }

    @Test func aRejectedProtectionSpaceDeliversThe401() async throws {
        let transport = ScriptedTransport([Self.challenge])
        let manager = Self.session(transport)
        manager.credential = Credential(user: "alice", password: "s3cret")
        manager.hooks.didReceiveChallenge = { _, _ in .rejectProtectionSpace }
        let error = await Self.failure { _ = try await manager.get("private") }
        guard case .responseValidationFailed(.unacceptableStatusCode(401, _, _, _))? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(transport.sent.count == 1)
    }

    @Test func aCancelledChallengeCancelsTheTask() async throws {
        let transport = ScriptedTransport([Self.challenge])
        let manager = Self.session(transport)
        manager.hooks.didReceiveChallenge = { _, _ in .cancelAuthenticationChallenge }
        let error = await Self.failure { _ = try await manager.get("private") }
        guard case .cancelled? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test func aCredentialTheServerKeepsRefusingIsNotSentForever() async throws {
        let transport = ScriptedTransport { _, _ in Self.challenge }
        let manager = Self.session(transport)
        manager.credential = Credential(user: "alice", password: "wrong")
        let error = await Self.failure { _ = try await manager.get("private") }
        guard case .responseValidationFailed(.unacceptableStatusCode(401, _, _, _))? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(transport.sent.count == 2)
    }

    // MARK: The cache

    static func cachingSession(_ transport: ScriptedTransport) -> HTTPSessionManager {
        let manager = Self.session(transport)
        manager.urlCache = HTTPCache(memoryCapacity: 1 << 20)
        return manager
    }

    @Test func aFreshStoredResponseAnswersWithoutARequest() async throws {
        let transport = ScriptedTransport([.respond(.ok, headers: ["Cache-Control": "max-age=60"], chunks: ["stored"])])
        let manager = Self.cachingSession(transport)
        _ = try await manager.get("fresh")
        let second = try await manager.get("fresh")
        #expect(second.data == Array("stored".utf8))
        #expect(transport.sent.count == 1)
    }

    @Test func aStoredResponseWithAnETagIsRevalidatedAndA304ServesItsBody() async throws {
        let transport = ScriptedTransport([
            .respond(.ok, headers: ["Cache-Control": "no-cache", "ETag": #""v1""#], chunks: ["stored"]),
            .respond(.notModified, headers: ["ETag": #""v1""#]),
        ])
        let manager = Self.cachingSession(transport)
        _ = try await manager.get("validated")
        let second = try await manager.get("validated")
        #expect(second.data == Array("stored".utf8))
        #expect(second.head?.statusCode == 200)
        #expect(transport.sent[1].headers["If-None-Match"] == [#""v1""#])
    }

    @Test func aNoStoreResponseIsNotStored() async throws {
        let transport = ScriptedTransport { _, _ in .respond(.ok, headers: ["Cache-Control": "no-store, max-age=60"], chunks: ["x"]) }
        let manager = Self.cachingSession(transport)
        _ = try await manager.get("secret")
        _ = try await manager.get("secret")
        #expect(transport.sent.count == 2)
    }

    @Test func aPostInvalidatesTheStoredGet() async throws {
        let transport = ScriptedTransport { request, _ in
            request.method == .GET ? .respond(.ok, headers: ["Cache-Control": "max-age=60"], chunks: ["list"]) : .respond(.created)
        }
        let manager = Self.cachingSession(transport)
        _ = try await manager.get("items")
        _ = try await manager.post("items", parameters: ["name": "new"])
        _ = try await manager.get("items")
        #expect(transport.sent.map(\.method) == [.GET, .POST, .GET])
    }

    @Test func reloadingIgnoresTheStoredResponse() async throws {
        let transport = ScriptedTransport { _, _ in .respond(.ok, headers: ["Cache-Control": "max-age=60"], chunks: ["x"]) }
        let manager = Self.cachingSession(transport)
        _ = try await manager.get("page")
        var request = Request(url: try #require(URL(string: "https://api.example.test/page")))
        request.cachePolicy = .reloadIgnoringLocalCacheData
        _ = try await manager.response(for: request, serializer: HTTPResponseSerializer())
        #expect(transport.sent.count == 2)
    }

    @Test func onlyFromTheCacheWithNothingStoredFailsWithoutARequest() async throws {
        let transport = ScriptedTransport([])
        let manager = Self.cachingSession(transport)
        var request = Request(url: try #require(URL(string: "https://api.example.test/absent")))
        request.cachePolicy = .returnCacheDataDontLoad
        let error = await Self.failure { _ = try await manager.response(for: request, serializer: HTTPResponseSerializer()) }
        guard case .resourceUnavailable? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(transport.sent.isEmpty)
    }

    @Test func aStaleResponseIsServedWhenTheServerFailsWithinStaleIfError() async throws {
        let transport = ScriptedTransport([
            .respond(.ok, headers: ["Cache-Control": "max-age=0, stale-if-error=60"], chunks: ["old"]),
            .respond(.internalServerError),
        ])
        let manager = Self.cachingSession(transport)
        _ = try await manager.get("resilient")
        let second = try await manager.get("resilient")
        #expect(second.data == Array("old".utf8))
        #expect(transport.sent.count == 2)
    }

    @Test(.timeLimit(.minutes(1))) func aStaleResponseAnswersA503WithoutWaitingForItsBody() async throws {
        let transport = ScriptedTransport([
            .respond(.ok, headers: ["Cache-Control": "max-age=0, stale-if-error=60"], chunks: ["old"]),
            .respondAndStall(.serviceUnavailable, chunks: ["a body that never ends"]),
        ])
        let manager = Self.cachingSession(transport)
        _ = try await manager.get("resilient")
        let second = try await manager.response(for: try Self.request("resilient"), serializer: HTTPResponseSerializer())
        #expect(second.data == Array("old".utf8))
        #expect(transport.sent.count == 2)
    }

    static func request(_ path: String) throws -> Request {
        Request(url: try #require(URL(string: path, relativeTo: Self.base)).absoluteURL)
    }

    /// A plain ``ResponseCache``: what it was asked and what it stored.
    actor DictionaryCache: ResponseCache {
        var stored: [URL: CachedResponse] = [:]
        func lookup(_ request: Request) async -> CacheLookup {
            self.stored[request.url].map(CacheLookup.fresh) ?? .miss
        }
        func store(_ response: CachedResponse, for request: Request) async {
            self.stored[request.url] = response
        }
    }

    @Test func aPlainResponseCacheStoresAndAnswersADataTask() async throws {
        let transport = ScriptedTransport([.respond(.ok, chunks: ["first ", "body"])])
        let manager = Self.session(transport)
        let cache = DictionaryCache()
        manager.urlCache = cache
        _ = try await manager.get("plain")
        let second = try await manager.get("plain")
        #expect(second.data == Array("first body".utf8))
        #expect(transport.sent.count == 1)
        #expect(await cache.stored.count == 1)
    }

    @Test func aStreamedTaskLeavesAPlainResponseCacheAlone() async throws {
        let transport = ScriptedTransport { _, _ in .respond(.ok, chunks: ["streamed"]) }
        let manager = Self.session(transport)
        let cache = DictionaryCache()
        manager.urlCache = cache
        _ = try await manager.get("plain")
        _ = try await manager.stream(try Self.request("plain")) { _ in }
        #expect(transport.sent.count == 2, "a plain cache takes whole responses: a stream neither reads nor fills it")
        #expect(await cache.stored.count == 1)
    }

    @Test func aStreamedTaskIsAnsweredFromTheHTTPCacheInChunks() async throws {
        let transport = ScriptedTransport([.respond(.ok, headers: ["Cache-Control": "max-age=60"], chunks: ["a", "b", "c"])])
        let manager = Self.cachingSession(transport)
        let received = NIOLockedValueBox<[UInt8]>([])
        _ = try await manager.stream(try Self.request("chunks")) { chunk in received.withLockedValue { $0 += chunk.readableBytesView } }
        received.withLockedValue { $0 = [] }
        let heads = NIOLockedValueBox<[Int]>([])
        _ = try await manager.stream(try Self.request("chunks"), receiveHead: { head in heads.withLockedValue { $0.append(head.statusCode) } }) { chunk in
            received.withLockedValue { $0 += chunk.readableBytesView }
        }
        #expect(received.withLockedValue { $0 } == Array("abc".utf8))
        #expect(heads.withLockedValue { $0 } == [200])
        #expect(transport.sent.count == 1)
    }

    @Test func theCachedResponseHandlerSeesADataTasksBodyAndAStreamsHeadOnly() async throws {
        let transport = ScriptedTransport { _, _ in .respond(.ok, headers: ["Cache-Control": "max-age=60"], chunks: ["whole ", "body"]) }
        let manager = Self.cachingSession(transport)
        let seen = NIOLockedValueBox<[[UInt8]]>([])
        manager.cachedResponseHandler = ResponseCacher { _, response in
            seen.withLockedValue { $0.append(response.data) }
            var changed = response
            changed.data = Array("changed".utf8)
            return changed
        }
        _ = try await manager.get("data")
        #expect(try await manager.get("data").data == Array("changed".utf8), "what the handler returns is what is stored")
        _ = try await manager.stream(try Self.request("stream")) { _ in }
        #expect(seen.withLockedValue { $0 } == [Array("whole body".utf8), []])
        // A response the cache may not store is not offered to the handler (NSURLSession asks
        // willCacheResponse only for cacheable ones), nor kept for it.
        let unstorable = ScriptedTransport { _, _ in .respond(.ok, headers: ["Cache-Control": "no-store"], chunks: ["secret"]) }
        let other = Self.cachingSession(unstorable)
        other.cachedResponseHandler = manager.cachedResponseHandler
        #expect(try await other.get("secret").data == Array("secret".utf8))
        #expect(seen.withLockedValue { $0 }.count == 2)
    }

    /// A session on `transport` with a disk-only cache, after one GET of `entry` stored it: the
    /// session and the entry's file.
    private static func sessionWithOneDiskEntry(_ transport: ScriptedTransport) async throws -> (HTTPSessionManager, URL) {
        let directory = try temporaryFolder()
        let manager = Self.session(transport)
        manager.urlCache = try HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 22, directory: directory)
        _ = try await manager.get("entry")
        let entries = CacheFixture.entryFiles(directory)
        try #require(entries.count == 1)
        return (manager, directory.appending(path: entries[0]))
    }

    @Test func aDamagedDiskEntryIsFetchedAgainByAStreamedTask() async throws {
        let transport = ScriptedTransport { _, index in .respond(.ok, headers: ["Cache-Control": "max-age=60"], chunks: ["body \(index)"]) }
        let (manager, entry) = try await Self.sessionWithOneDiskEntry(transport)
        var bytes = try [UInt8](Data(contentsOf: entry))
        bytes[bytes.count - 30] ^= 0xFF
        try Data(bytes).write(to: entry)
        let received = NIOLockedValueBox<[UInt8]>([])
        _ = try await manager.stream(try Self.request("entry")) { chunk in received.withLockedValue { $0 += chunk.readableBytesView } }
        #expect(received.withLockedValue { $0 } == Array("body 1".utf8), "the damaged entry is dropped and the body fetched again")
        #expect(transport.sent.count == 2)
    }

    /// A disk entry cut short after its check, while its body is read (another process
    /// truncating it), fails as the cache's damage, naming the URL, not as a request body that
    /// could not be read; the entry is gone, so the next request fetches it.
    @Test func aDiskEntryCutWhileReadFailsAsADamagedCachedResponse() async throws {
        let body = String(repeating: "x", count: 200_000)
        let transport = ScriptedTransport { _, _ in .respond(.ok, headers: ["Cache-Control": "max-age=60"], chunks: [body]) }
        let (manager, entry) = try await Self.sessionWithOneDiskEntry(transport)
        let directory = entry.deletingLastPathComponent()
        let chunks = NIOLockedValueBox(0)
        do {
            _ = try await manager.stream(try Self.request("entry")) { _ in
                // After the first chunk: the file loses its tail.
                if chunks.withLockedValue({
                    $0 += 1; return $0
                }) == 1 {
                    let handle = try FileHandle(forWritingTo: entry)
                    try handle.truncate(atOffset: 1000)
                    try handle.close()
                }
            }
            Issue.record("a cut entry streamed to its end")
        } catch LupineError.cachedResponseDamaged(let url) {
            #expect(url.lastPathComponent == "entry")
            #expect(LupineError.cachedResponseDamaged(url).description.contains("damaged and was removed"))
        }
        #expect(CacheFixture.entryFiles(directory).isEmpty)
        #expect(try await manager.get("entry").data.count == 200_000)
        #expect(transport.sent.count == 2)
    }

    // MARK: Cookies

    @Test func aCookieSetByOneResponseGoesWithTheNextRequest() async throws {
        let transport = ScriptedTransport([.respond(.ok, headers: ["Set-Cookie": "session=abc; Path=/"]), Self.ok])
        let manager = Self.session(transport)
        manager.cookieStorage = CookieStorage()
        _ = try await manager.get("login")
        _ = try await manager.get("account")
        #expect(transport.sent[0].headers["Cookie"].isEmpty)
        #expect(transport.sent[1].headers["Cookie"] == ["session=abc"])
    }

    @Test func aRequestThatDoesNotHandleCookiesSendsNone() async throws {
        let transport = ScriptedTransport([.respond(.ok, headers: ["Set-Cookie": "session=abc; Path=/"]), Self.ok])
        let manager = Self.session(transport)
        manager.cookieStorage = CookieStorage()
        _ = try await manager.get("login")
        var request = Request(url: try #require(URL(string: "https://api.example.test/account")))
        request.httpShouldHandleCookies = false
        _ = try await manager.response(for: request, serializer: HTTPResponseSerializer())
        #expect(transport.sent[1].headers["Cookie"].isEmpty)
    }

    // MARK: Adapters and fields

    struct Signing: RequestAdapter {
        func adapt(_ request: Request, for context: AdaptContext) async throws -> Request {
            var signed = request
            signed.headers.replaceOrAdd(name: "X-Signature", value: "attempt-\(context.retryCount)")
            return signed
        }
    }

    @Test func anAdapterSignsEveryAttempt() async throws {
        let transport = ScriptedTransport([.respond(.serviceUnavailable), Self.ok])
        let manager = Self.session(transport)
        manager.interceptor = Interceptor(adapters: [Signing()], retriers: [Self.retrying()])
        _ = try await manager.get("signed")
        #expect(transport.sent.map { $0.headers["X-Signature"] } == [["attempt-0"], ["attempt-1"]])
    }

    @Test func anAdapterThatThrowsSendsNothing() async throws {
        struct Broken: RequestAdapter {
            struct Failure: Error {}
            func adapt(_ request: Request, for context: AdaptContext) async throws -> Request { throw Failure() }
        }
        let transport = ScriptedTransport([Self.ok])
        let manager = Self.session(transport)
        manager.interceptor = Interceptor(adapters: [Broken()])
        let error = await Self.failure { _ = try await manager.get("x") }
        guard case .requestAdaptationFailed? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(transport.sent.isEmpty)
    }

    @Test func aRequestsTimeoutReachesTheTransport() async throws {
        let transport = ScriptedTransport([Self.ok])
        var request = Request(url: try #require(URL(string: "https://api.example.test/slow")))
        request.timeoutInterval = 2.5
        _ = try await Self.session(transport).response(for: request, serializer: HTTPResponseSerializer())
        #expect(transport.sent.first?.timeout == .milliseconds(2500))
    }

    @Test func aCancelledTaskStopsAStalledTransport() async throws {
        let transport = ScriptedTransport([.stall])
        let manager = Self.session(transport)
        let task = Task { try await manager.get("never") }
        try await waitUntil(timeout: .seconds(30), "the request reached the transport") { transport.sent.count == 1 }
        task.cancel()
        let error = await Self.failure { _ = try await task.value }
        guard case .cancelled? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test func aServerErrorIsDeliveredWithItsBody() async throws {
        let transport = ScriptedTransport([.respond(.notFound, headers: ["Content-Type": "text/plain"], chunks: ["no ", "such thing"])])
        let error = await Self.failure { _ = try await Self.session(transport).get("missing") }
        guard case .responseValidationFailed(.unacceptableStatusCode(404, _, let body, _))? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(body == Array("no such thing".utf8))
    }
}
