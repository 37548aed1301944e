import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import Testing

/// Proxies: settings read as curl reads them (by value), then requests through real squid
/// (forwarding and CONNECT, with and without Basic credentials) and microsocks (SOCKS5, with
/// and without credentials, names resolved here or by the proxy) to the test server, over
/// HTTP/1.1 and HTTP/2; and proxies that refuse, close, or answer nonsense (scripted).
@Suite(.timeLimit(.minutes(5))) struct ProxyTests {
    // MARK: Settings, by value

    @Test func proxyURLsParseAsCurlReadsThem() throws {
        let plain = try Proxy(url: "127.0.0.1:3128")
        #expect(plain.kind == .http && plain.host == "127.0.0.1" && plain.port == 3128 && plain.credentials == nil)
        #expect(try Proxy(url: "http://proxy.example").port == 1080)
        let socks = try Proxy(url: "socks5h://al%40ice:p%3Ass@[::1]:1081")
        #expect(socks.kind == .socks5h && socks.host == "::1" && socks.port == 1081)
        #expect(socks.credentials == Proxy.Credentials(user: "al@ice", password: "p:ss"))
        #expect(socks.description == "socks5h://al@ice@[::1]:1081")
        #expect(!socks.description.contains("p:ss"))
        let secure = try Proxy(url: "https://proxy.example")
        #expect(secure.kind == .https && secure.port == 443)
        for bad in ["ftp://proxy:21", "http://", "http://proxy:99999", "https://proxy:0", "http://a:b@127.0.0.1:9223372036854775808", "http://[::1]:99999999999999999999"] {
            #expect(throws: ProxyError.self) { try Proxy(url: bad) }
        }
        #expect {
            try Proxy(url: "gopher://user:secret@proxy:70")
        } throws: { error in
            !"\(error)".contains("secret")
        }
    }

    @Test func theEnvironmentIsReadAsCurlReadsIt() throws {
        let settings = try ProxySettings.environment([
            "HTTP_PROXY": "http://ignored:1",
            "https_proxy": "http://secure:2",
            "HTTPS_PROXY": "http://shadowed:3",
            "ALL_PROXY": "socks5://all:4",
            "NO_PROXY": "internal.example",
        ])
        // httpoxy: the upper-case HTTP_PROXY is never read; http falls back to ALL_PROXY.
        #expect(settings.httpProxy?.host == "all")
        #expect(settings.httpsProxy?.host == "secure")
        #expect(settings.httpsProxy.map { _ in true } == true)
        #expect(try ProxySettings.environment([:]) == ProxySettings())
        #expect(throws: ProxyError.self) { try ProxySettings.environment(["https_proxy": "ftp://x:1"]) }
        // all_proxy is read only for a scheme without its own: a bad one stops neither here.
        let both = try ProxySettings.environment(["all_proxy": "garbage://x", "http_proxy": "http://h:1", "https_proxy": "http://s:2"])
        #expect(both.httpProxy?.host == "h" && both.httpsProxy?.host == "s")
    }

    /// no_proxy entries that are no host, address or range are left out, as curl leaves them
    /// (hostile pass: `*.corp` stopped every request, even with no proxy set); an explicit list
    /// is still refused.
    @Test func unreadableNoProxyEntriesInTheEnvironmentAreLeftOut() throws {
        for entry in ["*.", "<local>", "10.*", "example.com/", ".", ":80", "host:", "a b", "1.2.3.4/33", "example.com:0", "10.0.0.0/40"] {
            let settings = try ProxySettings.environment(["http_proxy": "http://proxy:3128", "no_proxy": "\(entry),direct.test"])
            #expect(settings.proxy(for: try #require(URL(string: "http://direct.test/"))) == nil, "\(entry)")
            #expect(settings.proxy(for: try #require(URL(string: "http://other.test/"))) != nil, "\(entry)")
            #expect(throws: ProxyError.self, "\(entry)") { try ProxySettings(noProxy: entry) }
        }
    }

    @Test(arguments: [
        ("example.com", "example.com", 443, true),
        ("example.com", "www.example.com", 443, true),
        ("example.com", "notexample.com", 443, false),
        (".example.com", "example.com", 443, true),
        (".example.com", "a.b.example.com", 443, true),
        ("*", "anything.test", 443, true),
        ("10.0.0.0/8", "10.20.30.40", 443, true),
        ("10.0.0.0/8", "11.0.0.1", 443, false),
        ("192.168.1.7", "192.168.1.7", 443, true),
        ("fd00::/8", "fd12::1", 443, true),
        ("[::1]", "::1", 443, true),
        ("example.com:8443", "example.com", 8443, true),
        ("example.com:8443", "example.com", 443, false),
        (" Example.COM , other", "EXAMPLE.com", 443, true),
        // Hostile pass: globs, final dots, and IPv4 addresses in the resolver's other forms.
        ("*.corp.example", "git.corp.example", 443, true),
        ("*.corp.example", "corp.example", 443, true),
        ("localhost.", "localhost", 443, true),
        ("localhost.", "localhost.", 443, true),
        ("127.0.0.1", "127.1", 443, true),
        ("127.0.0.1", "127.0.0.01", 443, true),
        ("127.0.0.1", "0x7f.0.0.1", 443, true),
        ("127.0.0.0/8", "2130706433", 443, true),
        ("127.0.0.0/8", "128.1", 443, false),
        (" * ", "anything.test", 443, true),
        // An address is matched by address entries only, never as a name's suffix.
        ("1", "127.0.0.1", 443, false),
        ("0.0.1", "127.0.0.1", 443, false),
    ])
    func noProxyEntriesMatchAsCurlsDo(entry: String, host: String, port: Int, direct: Bool) throws {
        let proxy = Proxy(kind: .http, host: "proxy", port: 3128)
        let settings = try ProxySettings(httpProxy: proxy, httpsProxy: proxy, noProxy: entry)
        let url = try #require(URL(string: "https://\(host.contains(":") ? "[\(host)]" : host):\(port)/"))
        #expect((settings.proxy(for: url) == nil) == direct)
    }

    // MARK: Through squid

    static let trusting = ServerTrustEvaluator { _ in .trusted }

    static func withSquid<Result>(
        user: String? = nil,
        password: String? = nil,
        _ body: (ProxyServer) async throws -> Result
    ) async throws -> Result {
        let squid = try await ProxyServer.startSquid(in: try temporaryFolder(), user: user, password: password)
        return try await running {
            try await body(squid)
        } thenAlways: {
            await squid.stop()
        }
    }

    static func transport(through proxy: Proxy, trust: ServerTrustEvaluator = Self.trusting, version: HTTPVersionSelection = .automatic) throws -> NIOTransport {
        NIOTransport(
            configuration: TransportConfiguration(
                connectTimeout: .seconds(60),
                serverTrustEvaluator: trust,
                httpVersion: version,
                proxy: try ProxySettings(httpProxy: proxy, httpsProxy: proxy)
            )
        )
    }

    /// What `request` threw, or `nil` when it returned.
    static func failure(of request: () async throws -> Void) async -> (any Error)? {
        do {
            try await request()
            return nil
        } catch {
            return error
        }
    }

    /// The reason of a proxy's failure, whether it refused the request or the connection to it failed.
    static func proxyReason(of error: (any Error)?) -> String? {
        switch error {
        case TransportError.proxyFailed(_, let reason)?, TransportError.proxyConnectionFailed(_, let reason)?,
            TransportError.proxyCouldNotReachOrigin(_, let reason)?:
            reason
        default: nil
        }
    }

    static func echoedHeaders(_ body: ByteBuffer) throws -> [String: String] {
        let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        return try #require(object?["headers"] as? [String: String])
    }

    @Test(.enabled(if: ProxyServer.hasSquid)) func plainRequestsAreForwardedBySquid() async throws {
        try await Self.withSquid { squid in
            try await withServerAndTransport { server, _ in
                let transport = try Self.transport(through: Proxy(kind: .http, host: "127.0.0.1", port: squid.port))
                defer { Task { await transport.shutdown() } }
                let url = server.baseURL.appending("/get").appending(queryItems: [URLQueryItem(name: "a", value: "1")])
                let (response, body) = try await transport.get(url)
                #expect(response.status == .ok)
                #expect(try Self.echoedHeaders(body)["Via"]?.contains("squid") == true)
                // Forwarded, not tunnelled: a proxy connection with no tunnel phase.
                #expect(response.metrics.isProxyConnection)
                #expect(response.metrics.proxyConnectStart == nil && response.metrics.proxyConnectDuration == nil)
                await transport.shutdown()
                // squid logs the query as a bare `?`.
                try await squid.waitForLogLine(containing: "GET \(server.baseURL.appending("/get").absoluteString)? ")
            }
        }
    }

    /// Through a CONNECT tunnel the origin's certificate is what the trust hook judges, and ALPN
    /// picks HTTP/2 inside it.
    @Test(.enabled(if: ProxyServer.hasSquid), arguments: [false, true]) func httpsGoesThroughACONNECTTunnel(http2: Bool) async throws {
        try await Self.withSquid { squid in
            let server = try await LupineTestServer.start(.init(tls: true, http2: http2))
            defer { Task { await server.stop() } }
            let judged = NIOLockedValueBox<[ServerTrustChallenge]>([])
            let trust = ServerTrustEvaluator { challenge in
                judged.withLockedValue { $0.append(challenge) }
                return .trusted
            }
            let transport = try Self.transport(through: Proxy(kind: .http, host: "127.0.0.1", port: squid.port), trust: trust)
            defer { Task { await transport.shutdown() } }
            let (response, _) = try await transport.get(server.baseURL.appending("/get"))
            #expect(response.status == .ok)
            #expect(response.version == (http2 ? HTTPVersion(major: 2, minor: 0) : .http1_1))
            // The tunnel's phase lies between the connect to the proxy and the TLS handshake.
            let metrics = response.metrics
            #expect(metrics.isProxyConnection)
            let phases = [metrics.connectEnd, metrics.proxyConnectStart, metrics.proxyConnectEnd, metrics.secureConnectionStart]
            #expect(phases.allSatisfy { $0 != nil }, "\(metrics)")
            #expect(phases.compactMap { $0 } == phases.compactMap { $0 }.sorted(), "\(metrics)")
            let (again, _) = try await transport.get(server.baseURL.appending("/get"))
            #expect(again.metrics.isProxyConnection && again.metrics.isReusedConnection && again.metrics.proxyConnectStart == nil)
            let challenges = judged.withLockedValue { $0 }
            #expect(challenges.count == 1)
            #expect(challenges.first?.certificateChain.first == server.leafCertificateDER)
            #expect(challenges.first?.host == "127.0.0.1")
            await transport.shutdown()
            try await squid.waitForLogLine(containing: "CONNECT 127.0.0.1:\(server.port)")
        }
    }

    /// A request's own proxy settings overrule the transport's: through squid from a transport
    /// without a proxy, and straight to the origin (empty settings) from one with squid.
    @Test(.enabled(if: ProxyServer.hasSquid)) func aRequestChoosesItsOwnProxy() async throws {
        try await Self.withSquid { squid in
            try await withServerAndTransport { server, direct in
                let squidProxy = Proxy(kind: .http, host: "127.0.0.1", port: squid.port)
                var proxied = TransportRequest(url: server.baseURL.appending("/anything/request"), cancellation: TransportCancellation())
                proxied.proxy = try ProxySettings(httpProxy: squidProxy)
                let (response, body) = try await direct.fetch(proxied)
                #expect(response.status == .ok)
                #expect(try Self.echoedHeaders(body)["Via"]?.contains("squid") == true)

                let throughSquid = try Self.transport(through: squidProxy)
                defer { Task { await throughSquid.shutdown() } }
                var straight = TransportRequest(url: server.baseURL.appending("/anything/none"), cancellation: TransportCancellation())
                straight.proxy = try ProxySettings()
                let (_, straightBody) = try await throughSquid.fetch(straight)
                #expect(try Self.echoedHeaders(straightBody)["Via"] == nil)
                // A session request carries its settings to the transport.
                let session = HTTPSessionManager(baseURL: server.baseURL, transport: direct)
                var request = Request(url: server.baseURL.appending("/anything/session"))
                request.proxy = try ProxySettings(httpProxy: squidProxy)
                let answered = try await session.response(for: request, serializer: HTTPResponseSerializer())
                #expect(try Self.echoedHeaders(ByteBuffer(bytes: answered.data))["Via"]?.contains("squid") == true)
                session.invalidateSession(cancelingTasks: false)
                try await squid.waitForLogLine(containing: "/anything/session")
                #expect(squid.accessLog.contains { $0.contains("/anything/request") })
                #expect(!squid.accessLog.contains { $0.contains("/anything/none") })
            }
        }
    }

    /// squid spoken to over TLS (an HTTPS proxy), its certificate issued for 127.0.0.1 by a root
    /// written to the folder as `proxy-ca.pem`.
    static func withHTTPSSquid<Result>(
        user: String? = nil,
        password: String? = nil,
        _ body: (ProxyServer, _ root: TestCertificateAuthority, _ rootFile: String) async throws -> Result
    ) async throws -> Result {
        let folder = try temporaryFolder()
        let root = try TestCertificateAuthority(commonName: "Proxy Root")
        let leaf = try root.issueLeaf(commonName: "127.0.0.1", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
        let files = (root: folder.appending(path: "proxy-ca.pem"), certificate: folder.appending(path: "proxy.pem"), key: folder.appending(path: "proxy.key"))
        try Data(root.certificatePEM.utf8).write(to: files.root)
        try Data(leaf.certificatePEM.utf8).write(to: files.certificate)
        try Data(try leaf.privateKeyPEM().utf8).write(to: files.key)
        chmod(files.key.path, 0o644)
        let squid = try await ProxyServer.startSquid(in: folder, user: user, password: password, tls: (files.certificate.path, files.key.path))
        return try await running {
            try await body(squid, root, files.root.path)
        } thenAlways: {
            await squid.stop()
        }
    }

    /// An HTTPS proxy: TLS to squid judged by the proxy trust hook, then a CONNECT tunnel whose
    /// origin certificate the origin's hook alone judges (over HTTP/1.1 and h2), or a plain
    /// request forwarded over the TLS connection; a proxy certificate the hook refuses fails
    /// typed, naming the proxy.
    @Test(.enabled(if: ProxyServer.hasSquid)) func anHTTPSProxyIsSpokenToOverTLS() async throws {
        try await Self.withHTTPSSquid(user: "alice", password: "s3cret") { squid, root, _ in
            let origin = try await LupineTestServer.start(.init(tls: true, http2: true))
            let plain = try await LupineTestServer.start()
            try await running {
                let judged = NIOLockedValueBox<[String]>([])
                let proxy = try Proxy(url: "https://alice:s3cret@127.0.0.1:\(squid.port)")
                let transport = NIOTransport(
                    configuration: TransportConfiguration(
                        connectTimeout: .seconds(60),
                        serverTrustEvaluator: ServerTrustEvaluator { challenge in
                            judged.withLockedValue { $0.append(challenge.host) }
                            return challenge.certificateChain.first == origin.leafCertificateDER ? .trusted : .rejected(reason: "not the origin")
                        },
                        proxy: try ProxySettings(httpProxy: proxy, httpsProxy: proxy),
                        proxyTrustEvaluator: .verifying(trustRoots: [root.certificateDER], includingSystemRoots: false)
                    )
                )
                defer { Task { await transport.shutdown() } }
                for version in [HTTPVersionSelection.automatic, .http1] {
                    var request = TransportRequest(url: origin.baseURL.appending("/get"), cancellation: TransportCancellation())
                    request.httpVersion = version
                    let (response, body) = try await transport.fetch(request)
                    #expect(response.status == .ok)
                    #expect(response.version == (version == .http1 ? .http1_1 : HTTPVersion(major: 2, minor: 0)))
                    #expect(response.metrics.isProxyConnection && response.metrics.proxyConnectDuration != nil)
                    #expect(try Self.echoedHeaders(body)["Proxy-Authorization"] == nil)
                }
                #expect(judged.withLockedValue { $0 } == ["127.0.0.1", "127.0.0.1"])
                let (forwarded, forwardedBody) = try await transport.get(plain.baseURL.appending("/get"))
                #expect(forwarded.status == .ok)
                let headers = try Self.echoedHeaders(forwardedBody)
                #expect(headers["Via"]?.contains("squid") == true && headers["Proxy-Authorization"] == nil)

                // The system's roots do not know the proxy's: refused before anything is sent.
                let strict = NIOTransport(configuration: TransportConfiguration(connectTimeout: .seconds(60), proxy: try ProxySettings(httpProxy: proxy, httpsProxy: proxy)))
                defer { Task { await strict.shutdown() } }
                await #expect {
                    _ = try await strict.get(plain.baseURL.appending("/get"))
                } throws: { error in
                    guard case TransportError.proxyFailed(let named, let reason) = error else { return false }
                    return named == "127.0.0.1:\(squid.port)" && reason.contains("its certificate is not trusted")
                }
                await transport.shutdown()
                await strict.shutdown()
                try await squid.waitForLogLine(containing: "CONNECT 127.0.0.1:\(origin.port)")
            } thenAlways: {
                await origin.stop()
                await plain.stop()
            }
        }
    }

    @Test(.enabled(if: ProxyServer.hasSquid)) func squidsCredentialsGoToSquidAlone() async throws {
        try await Self.withSquid(user: "alice", password: "s3cret") { squid in
            let server = try await LupineTestServer.start(.init(tls: true))
            defer { Task { await server.stop() } }
            // Without credentials the tunnel is refused, typed, naming the proxy.
            let anonymous = try Self.transport(through: Proxy(kind: .http, host: "127.0.0.1", port: squid.port))
            defer { Task { await anonymous.shutdown() } }
            await #expect {
                _ = try await anonymous.get(server.baseURL.appending("/get"))
            } throws: { error in
                guard case TransportError.proxyFailed(let proxy, let reason) = error else { return false }
                return proxy == "127.0.0.1:\(squid.port)" && reason.contains("asks for credentials (407")
            }
            let wrong = try Self.transport(through: Proxy(url: "http://alice:nope@127.0.0.1:\(squid.port)"))
            defer { Task { await wrong.shutdown() } }
            await #expect {
                _ = try await wrong.get(server.baseURL.appending("/get"))
            } throws: { error in
                guard case TransportError.proxyFailed(_, let reason) = error else { return false }
                return reason.contains("refused the credentials")
            }
            let alice = try Self.transport(through: Proxy(url: "http://alice:s3cret@127.0.0.1:\(squid.port)"))
            defer { Task { await alice.shutdown() } }
            let (response, body) = try await alice.get(server.baseURL.appending("/get"))
            #expect(response.status == .ok)
            #expect(try Self.echoedHeaders(body)["Proxy-Authorization"] == nil)
            // Forwarded in the clear, the credentials are squid's too, and it does not pass them on.
            let plain = try await LupineTestServer.start()
            defer { Task { await plain.stop() } }
            let (forwarded, forwardedBody) = try await alice.get(plain.baseURL.appending("/get"))
            #expect(forwarded.status == .ok)
            #expect(try Self.echoedHeaders(forwardedBody)["Proxy-Authorization"] == nil)
            // Forwarded without credentials, squid's 407 is the answer, as curl shows it.
            let (refused, _) = try await anonymous.get(plain.baseURL.appending("/get"))
            #expect(refused.status.code == 407)
        }
    }

    // MARK: Through microsocks

    @Test(.enabled(if: ProxyServer.hasMicrosocks), arguments: [Proxy.Kind.socks5, .socks5h])
    func socks5CarriesBothSchemesWithAndWithoutCredentials(kind: Proxy.Kind) async throws {
        let open = try await ProxyServer.startMicrosocks(in: try temporaryFolder())
        let locked = try await ProxyServer.startMicrosocks(in: try temporaryFolder(), user: "alice", password: "s3cret")
        let server = try await LupineTestServer.start(.init(tls: true, http2: true))
        let plain = try await LupineTestServer.start()
        try await running {
            for (proxy, expected) in [
                (Proxy(kind: kind, host: "127.0.0.1", port: open.port), nil),
                (Proxy(kind: kind, host: "127.0.0.1", port: locked.port, credentials: .init(user: "alice", password: "s3cret")), nil),
                (Proxy(kind: kind, host: "127.0.0.1", port: locked.port), "asks for credentials"),
                (Proxy(kind: kind, host: "127.0.0.1", port: locked.port, credentials: .init(user: "alice", password: "no")), "refused the credentials"),
            ] as [(Proxy, String?)] {
                let transport = try Self.transport(through: proxy)
                defer { Task { await transport.shutdown() } }
                // By name: localhost, which socks5 resolves here and socks5h leaves to the proxy.
                let urls = [
                    try #require(URL(string: "https://localhost:\(server.port)/get")),
                    try #require(URL(string: "http://localhost:\(plain.port)/get")),
                ]
                for url in urls {
                    if let expected {
                        await #expect {
                            _ = try await transport.get(url)
                        } throws: { error in
                            guard case TransportError.proxyFailed(_, let reason) = error else { return false }
                            return reason.contains(expected)
                        }
                    } else {
                        let response: TransportResponse
                        do {
                            response = try await transport.get(url).0
                        } catch {
                            Issue.record("\(url) through \(proxy): \(error)")
                            continue
                        }
                        #expect(response.status == .ok)
                        #expect(response.version == (url.scheme == "https" ? HTTPVersion(major: 2, minor: 0) : .http1_1))
                    }
                }
            }
        } thenAlways: {
            await server.stop()
            await plain.stop()
            await open.stop()
            await locked.stop()
        }
    }

    // MARK: Proxies that fail

    @Test func anUnreachableProxyIsNamedNotTheOrigin() async throws {
        let transport = try Self.transport(through: Proxy(kind: .http, host: "127.0.0.1", port: 1))
        defer { Task { await transport.shutdown() } }
        await #expect {
            _ = try await transport.get(URL(string: "https://origin.example/get")!)
        } throws: { error in
            guard case TransportError.proxyConnectionFailed(let proxy, let reason) = error else { return false }
            return proxy == "127.0.0.1:1" && reason.contains("connection refused") && "\(error)".hasPrefix("could not connect to the proxy 127.0.0.1:1")
        }
    }

    /// A retry policy retries a connection to the proxy that failed (refused, here), as it does
    /// a connection to a server; a proxy's refusal of the request itself is not retried.
    @Test func aFailedConnectionToTheProxyIsRetried() async throws {
        let transport = try Self.transport(through: Proxy(kind: .http, host: "127.0.0.1", port: 1))
        let manager = HTTPSessionManager(transport: transport)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let retries = NIOLockedValueBox(0)
        manager.interceptor = Interceptor(retriers: [CountingRetrier(count: retries, policy: RetryPolicy(retryLimit: 2, exponentialBackoffScale: .zero, jitter: false))])
        await #expect(throws: LupineError.self) { _ = try await manager.get("https://origin.example/get") }
        #expect(retries.withLockedValue { $0 } == 3)
        await transport.shutdown()
    }

    /// A proxy that could not reach the origin (a 503 to CONNECT, as squid answers when the
    /// origin refuses it) is retried as a failed connection is; one that refuses by its rules
    /// (403) is not.
    @Test(arguments: [(503, 3), (403, 1)]) func aTunnelTheProxyCouldNotOpenIsRetriedOneItRefusedIsNot(status: Int, asked: Int) async throws {
        try await withScriptedServerAndTransport { proxyServer, _ in
            let transport = try Self.transport(through: Proxy(kind: .http, host: "127.0.0.1", port: proxyServer.url.port ?? 0))
            let manager = HTTPSessionManager(transport: transport)
            let retries = NIOLockedValueBox(0)
            manager.interceptor = Interceptor(retriers: [CountingRetrier(count: retries, policy: RetryPolicy(retryLimit: 2, exponentialBackoffScale: .zero, jitter: false))])
            async let outcome = Self.failure { _ = try await manager.get("https://origin.example/get") }
            for _ in 0..<asked {
                let connection = try await proxyServer.nextConnection()
                _ = await connection.readRequestHead()
                try await connection.write("HTTP/1.1 \(status) Refused\r\nContent-Length: 0\r\n\r\n")
                try await connection.close()
            }
            let error = await outcome
            #expect("\(String(describing: error))".contains("(\(status) Refused)"))
            #expect(retries.withLockedValue { $0 } == asked)
            manager.invalidateSession(cancelingTasks: true)
            await transport.shutdown()
        }
    }

    struct CountingRetrier: RequestRetrier {
        let count: NIOLockedValueBox<Int>
        let policy: RetryPolicy
        func retry(_ context: RetryContext) async throws -> RetryDecision {
            self.count.withLockedValue { $0 += 1 }
            return try await self.policy.retry(context)
        }
    }

    @Test(arguments: [
        ("HTTP/1.1 403 Forbidden\r\n\r\n", "refused the tunnel to origin.example:443 (403 Forbidden)"),
        ("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n", "refused the tunnel to origin.example:443 (502"),
        ("SSH-2.0-OpenSSH\r\n\r\n", "not HTTP"),
        ("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 20_000), "longer than 16 KiB"),
        ("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 20_000) + "\r\n\r\n", "longer than 16 KiB"),
        ("HTTP/1.1 200 Conn", "closed the connection during CONNECT"),
        // The status line ends at its CR or LF (in Swift "\r\n" is one Character): the fields
        // after it are not quoted, and a status line without a reason is still HTTP.
        ("HTTP/1.1 407\r\nProxy-Authenticate: Basic\r\n\r\n", "refused the credentials (407)"),
        ("HTTP/1.1 503 Service Unavailable\r\nServer: squid\r\n\r\n", "(503 Service Unavailable)"),
        // Lone LF line ends (RFC 9112 §2.2 lets a recipient accept them).
        ("HTTP/1.1 403 Forbidden\n\n", "(403 Forbidden)"),
    ])
    func aProxyThatWillNotTunnelFailsTyped(answer: String, words: String) async throws {
        try await withScriptedServerAndTransport { proxyServer, _ in
            let proxy = Proxy(kind: .http, host: "127.0.0.1", port: proxyServer.url.port ?? 0, credentials: .init(user: "u", password: "secret"))
            let transport = try Self.transport(through: proxy)
            defer { Task { await transport.shutdown() } }
            async let outcome = Self.failure { _ = try await transport.get(URL(string: "https://origin.example/get")!) }
            let connection = try await proxyServer.nextConnection()
            let head = await connection.readRequestHead() ?? ""
            #expect(head.hasPrefix("CONNECT origin.example:443 HTTP/1.1\r\n"))
            #expect(head.contains("Proxy-Authorization: Basic dTpzZWNyZXQ="))
            try await connection.write(answer)
            try await connection.close()
            let error = await outcome
            guard let reason = Self.proxyReason(of: error) else {
                Issue.record("expected proxyFailed, got \(String(describing: error))")
                return
            }
            #expect(reason.contains(words), "\(reason)")
            #expect(!reason.contains("Server") && !reason.contains("Proxy-Authenticate"), "\(reason)")
            #expect(!"\(String(describing: error))".contains("secret"))
        }
    }

    /// Bytes that come in the same read as a tunnel's opening answer belong to the origin: they
    /// reach its handlers at once (here TLS, which refuses them), rather than being lost and the
    /// request waiting out its deadline.
    @Test(arguments: [
        ("connect", ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\nhello, not TLS")),
        ("connect", ByteBuffer(string: "HTTP/1.1 200\n\nhello, not TLS")),
        ("socks5h", ByteBuffer(bytes: [0x05, 0x00, 0x05, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0] + Array("hello, not TLS".utf8))),
    ])
    func whatFollowsATunnelsAnswerInTheSameReadReachesTheOrigin(kind: String, answer: ByteBuffer) async throws {
        try await withScriptedServerAndTransport { proxyServer, _ in
            let proxy = Proxy(kind: kind == "connect" ? .http : .socks5h, host: "127.0.0.1", port: proxyServer.url.port ?? 0)
            let transport = try Self.transport(through: proxy)
            defer { Task { await transport.shutdown() } }
            async let outcome = Self.failure { _ = try await transport.get(URL(string: "https://origin.example/get")!) }
            let connection = try await proxyServer.nextConnection()
            if kind == "connect" {
                _ = await connection.readRequestHead()
            } else {
                _ = await connection.readBytes(3)
            }
            // The connection stays open: only the bytes can end the request.
            try await connection.write(answer)
            let error = await outcome
            guard case TransportError.tlsHandshakeFailed(let host, _)? = error else {
                Issue.record("expected the origin's TLS to refuse the bytes, got \(String(describing: error))")
                return
            }
            #expect(host == "origin.example")
            try await connection.close()
        }
    }

    /// socks5h carries a name in at most 255 bytes: a longer one is refused before the handshake
    /// starts (the proxy receives nothing), never cut into another host's name.
    @Test func aNameTooLongForSOCKS5IsRefusedNotCut() async throws {
        try await withScriptedServerAndTransport { proxyServer, _ in
            let proxy = Proxy(kind: .socks5h, host: "127.0.0.1", port: proxyServer.url.port ?? 0)
            let transport = try Self.transport(through: proxy)
            defer { Task { await transport.shutdown() } }
            let name = String(repeating: "a", count: 251) + ".localhost"
            async let outcome = Self.failure { _ = try await transport.get(URL(string: "http://\(name)/")!) }
            let connection = try await proxyServer.nextConnection()
            #expect(await connection.readBytes(1) == [])
            let error = await outcome
            guard case TransportError.proxyFailed(_, let reason)? = error else {
                Issue.record("expected proxyFailed, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("longer than the 255 bytes"), "\(reason)")
        }
    }

    /// socks5 resolves the target here, before the greeting: a name that does not resolve is the
    /// name's failure (as curl's `Could not resolve host`), and the proxy is asked nothing.
    @Test func aTargetSOCKS5CannotResolveHereIsHostNotFound() async throws {
        try await withScriptedServerAndTransport { proxyServer, _ in
            let proxy = Proxy(kind: .socks5, host: "127.0.0.1", port: proxyServer.url.port ?? 0)
            let transport = try Self.transport(through: proxy)
            defer { Task { await transport.shutdown() } }
            async let outcome = Self.failure { _ = try await transport.get(URL(string: "http://nosuchhost.invalid/")!) }
            let connection = try await proxyServer.nextConnection()
            #expect(await connection.readBytes(1) == [])
            let error = await outcome
            guard case TransportError.hostNotFound(let host)? = error else {
                Issue.record("expected hostNotFound, got \(String(describing: error))")
                return
            }
            #expect(host == "nosuchhost.invalid")
        }
    }

    /// Named by where the time went when the connect deadline passes: a proxy that takes the
    /// connection and then says nothing is the proxy's failure, not the origin it never reached;
    /// once it has opened the tunnel, a silent origin's TLS handshake is the origin's timeout (as
    /// curl's `SSL connection timeout`).
    @Test(arguments: [false, true]) func theDeadlineNamesWhereTheTimeWent(tunnelOpens: Bool) async throws {
        try await withScriptedServerAndTransport { proxyServer, _ in
            let transport = NIOTransport(
                configuration: TransportConfiguration(
                    // Long enough, when the tunnel opens, for the scripted proxy to answer first
                    // under a full suite's load.
                    connectTimeout: tunnelOpens ? .seconds(5) : .milliseconds(500),
                    proxy: try ProxySettings(httpsProxy: Proxy(kind: .http, host: "127.0.0.1", port: proxyServer.url.port ?? 0))
                )
            )
            defer { Task { await transport.shutdown() } }
            async let outcome = Self.failure { _ = try await transport.get(URL(string: "https://origin.example/get")!) }
            let connection = try await proxyServer.nextConnection()
            if tunnelOpens {
                #expect(await connection.readRequestHead()?.hasPrefix("CONNECT origin.example:443 HTTP/1.1") == true)
                try await connection.write("HTTP/1.1 200 Connection established\r\n\r\n")
            }
            let error = await outcome
            switch error {
            case TransportError.proxyConnectionFailed(let named, let reason)? where !tunnelOpens:
                #expect(named == "127.0.0.1:\(proxyServer.url.port ?? 0)")
                #expect(reason.contains("did not complete within"), "\(reason)")
            case TransportError.connectTimeout(let host, let port, _)? where tunnelOpens:
                #expect(host == "origin.example" && port == 443)
            default:
                Issue.record("tunnel opens: \(tunnelOpens), got \(String(describing: error))")
            }
            try await connection.close()
        }
    }

    @Test(arguments: [
        ([0x04, 0x5A] as [UInt8], "does not speak SOCKS5"),
        ([0x05, 0xFF], "asks for credentials"),
        ([0x05, 0x00, 0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0], "connection refused"),
        ([0x05, 0x00, 0x05, 0x00, 0x00, 0x09, 0, 0, 0, 0, 0, 0], "unknown address type"),
        ([0x05, 0x07], "not offered"),
    ])
    func aSOCKSServerThatRefusesOrBabblesFailsTyped(answer: [UInt8], words: String) async throws {
        try await withScriptedServerAndTransport { proxyServer, _ in
            let proxy = Proxy(kind: .socks5h, host: "127.0.0.1", port: proxyServer.url.port ?? 0)
            let transport = try Self.transport(through: proxy)
            defer { Task { await transport.shutdown() } }
            async let outcome = Self.failure { _ = try await transport.get(URL(string: "http://origin.example/get")!) }
            let connection = try await proxyServer.nextConnection()
            #expect(await connection.readBytes(3) == [0x05, 0x01, 0x00])
            try await connection.write(ByteBuffer(bytes: answer))
            try await connection.close()
            let error = await outcome
            // The origin unreachable (a refused connection) may pass another time; the rest will not.
            let answered: String? =
                switch error {
                case TransportError.proxyFailed(_, let reason)?, TransportError.proxyCouldNotReachOrigin(_, let reason)?: reason
                default: nil
                }
            guard let reason = answered else {
                Issue.record("expected the proxy's failure, got \(String(describing: error))")
                return
            }
            #expect(reason.contains(words), "\(reason)")
        }
    }

    // MARK: The command line

    /// `lupine get` through squid, by `--proxy` and by the environment, gets what curl gets.
    @Test(.enabled(if: ProxyServer.hasSquid && Curl.isInstalled)) func theCommandLineGoesThroughSquidAsCurlDoes() async throws {
        try await Self.withSquid { squid in
            let server = try await LupineTestServer.start()
            defer { Task { await server.stop() } }
            let url = server.baseURL.appending("/bytes/2048").appending(queryItems: [URLQueryItem(name: "seed", value: "7")]).absoluteString
            let proxy = "http://127.0.0.1:\(squid.port)"
            let curl = try await Curl.run(["-s", "-x", proxy, url])
            let byOption = try await LupineCommandLineTests.lupine(["get", url, "--proxy", proxy, "--print", "b"])
            #expect(byOption.status == 0, "\(byOption.stderr)")
            #expect(Data(byOption.output) == curl.stdout)
            let byEnvironment = try await LupineCommandLineTests.lupine(["get", url, "--print", "b"], environment: ["http_proxy": proxy])
            #expect(Data(byEnvironment.output) == curl.stdout)
            let bypassed = try await LupineCommandLineTests.lupine(["get", url, "--print", "b", "-v"], environment: ["http_proxy": proxy, "no_proxy": "127.0.0.1"])
            #expect(Data(bypassed.output) == curl.stdout)
            #expect(!bypassed.stderr.contains("through the proxy"), "\(bypassed.stderr)")
            let forwarded = try await LupineCommandLineTests.lupine(["get", url, "--print", "b", "-v"], environment: ["http_proxy": proxy])
            #expect(forwarded.stderr.contains("lupine: through the proxy \(proxy), which forwards the request\n"), "\(forwarded.stderr)")
            // The readiness check's connection is logged too, as an error without a request.
            let lines = squid.accessLog.filter { $0.contains(" GET ") }
            #expect(lines.count == 4, "\(lines.joined(separator: " | "))")  // curl's, --proxy's, the environment's, -v's
            let badSetting = try await LupineCommandLineTests.lupine(["get", url], environment: ["http_proxy": "ftp://user:secret@x:1"])
            #expect(badSetting.status == 1 && badSetting.stderr.contains("http_proxy") && !badSetting.stderr.contains("secret"), "\(badSetting.stderr)")
        }
    }

    /// As curl: `-x` and `--noproxy '*'` win over a malformed environment, which is not read
    /// then; a malformed variable the URL's scheme does not read stops nothing; `-x ''` goes
    /// straight to the origin; a port the proxy URL spells that does not parse is refused.
    @Test func theCommandLineChoosesProxiesAsCurlDoes() async throws {
        try await withTestServer { server in
            let url = server.baseURL.absoluteString + "/get"
            let garbage = ["http_proxy": "garbage value", "https_proxy": "also garbage"]
            let direct = ["--timeout", "30", "--print", "b"]
            for arguments in [["-x", ""], ["--noproxy", "*"]] {
                let run = try await LupineCommandLineTests.lupine(["get", url] + direct + arguments, environment: garbage)
                #expect(run.status == 0, "\(arguments): \(run.stderr)")
            }
            // An http URL needs http_proxy alone: a bad https_proxy is not its concern.
            let unconcerned = try await LupineCommandLineTests.lupine(["get", url] + direct, environment: ["https_proxy": "also garbage"])
            #expect(unconcerned.status == 0, "\(unconcerned.stderr)")
            let concerned = try await LupineCommandLineTests.lupine(["get", url] + direct, environment: ["http_proxy": "garbage value"])
            #expect(concerned.status == 1 && concerned.stderr.contains("http_proxy: garbage value"), "\(concerned.stderr)")
            #expect(!concerned.stderr.contains("no_proxy"), "\(concerned.stderr)")
            // Hostile pass: an unreadable no_proxy entry stops nothing (curl leaves it out); a bad
            // all_proxy stops nothing when the scheme's own variable is set; a bad proxy variable
            // stops nothing for a host --noproxy sends directly.
            let globbed = try await LupineCommandLineTests.lupine(["get", url] + direct, environment: ["no_proxy": "*.example.com"])
            #expect(globbed.status == 0, "\(globbed.stderr)")
            let host = try #require(server.baseURL.host())
            let listed = try await LupineCommandLineTests.lupine(["get", url] + direct, environment: ["all_proxy": "garbage://x", "no_proxy": host])
            #expect(listed.status == 0, "\(listed.stderr)")
            let bypassed = try await LupineCommandLineTests.lupine(["get", url, "--noproxy", host] + direct, environment: garbage)
            #expect(bypassed.status == 0, "\(bypassed.stderr)")
            let overflowing = try await LupineCommandLineTests.lupine(["get", url, "-x", "http://a:pw@127.0.0.1:9223372036854775808"])
            #expect(overflowing.status == 1 && overflowing.stderr.contains("has no valid port"), "\(overflowing.stderr)")
        }
    }

    /// `--proxy-user` and `--auth` values are hidden from `ps` once parsed, as curl hides them.
    @Test func secretsOnTheCommandLineAreHiddenFromOtherProcesses() async throws {
        try await withTestServer { server in
            let running = try LupineCommandLineTests.start([
                "get", server.baseURL.absoluteString + "/delay/3", "--auth", "alice:s3cret", "--proxy-user=bob:hunter2", "-x", "", "--timeout", "60",
            ])
            try await running.whileRunning {
                let path = "/proc/\(running.process.pid)/cmdline"
                try await waitUntil("lupine hides its secrets") {
                    let line = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data(), as: UTF8.self)
                    return line.contains("--auth") && !line.contains("s3cret") && !line.contains("hunter2")
                }
            }
            let outcome = try await running.finish()
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
    }

    /// `lupine get https://…` through squid's CONNECT, by `--proxy`, by `https_proxy` and with
    /// `--proxy-user`, gets what curl gets; squid logs a tunnel for each.
    @Test(.enabled(if: ProxyServer.hasSquid && Curl.isInstalled)) func theCommandLineTunnelsHTTPSThroughSquidAsCurlDoes() async throws {
        try await Self.withSquid(user: "alice", password: "s3cret") { squid in
            let server = try await LupineTestServer.start(.init(tls: true, http2: true))
            defer { Task { await server.stop() } }
            let folder = try temporaryFolder()
            let root = folder.appending(path: "ca.pem").path
            try Data(try #require(server.certificateAuthorityPEM).utf8).write(to: URL(fileURLWithPath: root))
            let url = server.baseURL.appending("/bytes/4096").appending(queryItems: [URLQueryItem(name: "seed", value: "3")]).absoluteString
            let proxy = "http://127.0.0.1:\(squid.port)"
            let curl = try await Curl.run(["-s", "--cacert", root, "-x", proxy, "--proxy-user", "alice:s3cret", url])
            #expect(curl.stdout.count == 4096)
            let runs = [
                try await LupineCommandLineTests.lupine(["get", url, "--cacert", root, "--proxy", proxy, "--proxy-user", "alice:s3cret", "--print", "b"]),
                try await LupineCommandLineTests.lupine(
                    ["get", url, "--cacert", root, "--print", "b"],
                    environment: ["https_proxy": "http://alice:s3cret@127.0.0.1:\(squid.port)"]
                ),
            ]
            for run in runs {
                #expect(run.status == 0, "\(run.stderr)")
                #expect(Data(run.output) == curl.stdout)
            }
            // -v names the proxy and the tunnel, never the password.
            let verbose = try await LupineCommandLineTests.lupine(["get", url, "--cacert", root, "--proxy", proxy, "--proxy-user", "alice:s3cret", "-v"])
            #expect(verbose.status == 0, "\(verbose.stderr)")
            #expect(verbose.stderr.contains("lupine: through the proxy http://alice@127.0.0.1:\(squid.port), by a CONNECT tunnel to 127.0.0.1:\(server.port)\n"), "\(verbose.stderr)")
            #expect(verbose.stderr.contains("lupine: the proxy's tunnel opened in "))
            #expect(!verbose.stderr.contains("s3cret"))
            let refused = try await LupineCommandLineTests.lupine(["get", url, "--cacert", root, "--proxy", proxy, "-v"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("127.0.0.1:\(squid.port)") && refused.stderr.contains("407"), "\(refused.stderr)")
            try await squid.waitForLogLine(containing: "CONNECT 127.0.0.1:\(server.port)")
        }
    }

    /// `lupine get` through an HTTPS proxy (`-x https://…` with `--proxy-cacert`, or
    /// `--proxy-insecure`), for https and http, gets what curl gets; without the proxy's root it
    /// fails naming the proxy.
    @Test(.enabled(if: ProxyServer.hasSquid && Curl.isInstalled)) func theCommandLineGoesThroughAnHTTPSProxyAsCurlDoes() async throws {
        try await Self.withHTTPSSquid { squid, _, proxyRoot in
            let origin = try await LupineTestServer.start(.init(tls: true, http2: true))
            let plain = try await LupineTestServer.start()
            try await running {
                let folder = try temporaryFolder()
                let root = folder.appending(path: "ca.pem").path
                try Data(try #require(origin.certificateAuthorityPEM).utf8).write(to: URL(fileURLWithPath: root))
                let proxy = "https://127.0.0.1:\(squid.port)"
                for url in [origin.baseURL.appending("/bytes/3000?seed=8").absoluteString, plain.baseURL.appending("/bytes/3000?seed=9").absoluteString] {
                    let curl = try await Curl.run(["-s", "--cacert", root, "-x", proxy, "--proxy-cacert", proxyRoot, url])
                    #expect(curl.stdout.count == 3000, "\(curl.stderr)")
                    for trust in [["--proxy-cacert", proxyRoot], ["--proxy-insecure"]] {
                        let lupine = try await LupineCommandLineTests.lupine(["get", url, "--cacert", root, "-x", proxy, "--print", "b"] + trust)
                        #expect(lupine.status == 0, "\(url) \(trust): \(lupine.stderr)")
                        #expect(Data(lupine.output) == curl.stdout)
                    }
                    let untrusted = try await LupineCommandLineTests.lupine(["get", url, "--cacert", root, "-x", proxy])
                    #expect(untrusted.status != 0)
                    #expect(untrusted.stderr.contains("127.0.0.1:\(squid.port)") && untrusted.stderr.contains("not trusted"), "\(untrusted.stderr)")
                }
            } thenAlways: {
                await origin.stop()
                await plain.stop()
            }
        }
    }

    /// `lupine get` through microsocks (socks5 and socks5h, with and without credentials), for
    /// http and https, gets what curl gets through the same proxy.
    @Test(.enabled(if: ProxyServer.hasMicrosocks && Curl.isInstalled)) func theCommandLineGoesThroughSOCKS5AsCurlDoes() async throws {
        let open = try await ProxyServer.startMicrosocks(in: try temporaryFolder())
        let locked = try await ProxyServer.startMicrosocks(in: try temporaryFolder(), user: "alice", password: "s3cret")
        let server = try await LupineTestServer.start(.init(tls: true, http2: true))
        let plain = try await LupineTestServer.start()
        try await running {
            let folder = try temporaryFolder()
            let root = folder.appending(path: "ca.pem").path
            try Data(try #require(server.certificateAuthorityPEM).utf8).write(to: URL(fileURLWithPath: root))
            let urls = [
                "https://localhost:\(server.port)/bytes/1024?seed=5",
                "http://localhost:\(plain.port)/bytes/1024?seed=6",
            ]
            for scheme in ["socks5", "socks5h"] {
                for proxy in ["\(scheme)://127.0.0.1:\(open.port)", "\(scheme)://alice:s3cret@127.0.0.1:\(locked.port)"] {
                    for url in urls {
                        let curl = try await Curl.run(["-s", "--cacert", root, "-x", proxy, url])
                        let lupine = try await LupineCommandLineTests.lupine(["get", url, "--cacert", root, "-x", proxy, "--print", "b"])
                        #expect(curl.stdout.count == 1024, "curl through \(proxy) to \(url): \(curl.stderr)")
                        #expect(lupine.status == 0, "through \(proxy) to \(url): \(lupine.stderr)")
                        #expect(Data(lupine.output) == curl.stdout, "through \(proxy) to \(url)")
                    }
                }
            }
            let verbose = try await LupineCommandLineTests.lupine(["get", urls[0], "--cacert", root, "-x", "socks5h://alice:s3cret@127.0.0.1:\(locked.port)", "-v"])
            #expect(
                verbose.stderr.contains("through the proxy socks5h://alice@127.0.0.1:\(locked.port), by a SOCKS5 tunnel to localhost:\(server.port) (the proxy resolves the name)"),
                "\(verbose.stderr)"
            )
            #expect(!verbose.stderr.contains("s3cret"))
            let refused = try await LupineCommandLineTests.lupine(["get", urls[1], "-x", "socks5://alice:wrong@127.0.0.1:\(locked.port)"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("refused the credentials") && !refused.stderr.contains("wrong"), "\(refused.stderr)")
        } thenAlways: {
            await server.stop()
            await plain.stop()
            await open.stop()
            await locked.stop()
        }
    }
}
