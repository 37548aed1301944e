import Foundation
import Lupine
import LupineTestServer
import Testing

/// The session's ``CookieStorage`` in the loop, against the test server's httpbin cookie
/// endpoints over loopback: cookies set by a response (a redirect included) are sent on later
/// matching requests, and never to another host.
@Suite struct CookieSessionTests {
    /// The cookies `/cookies` says it received.
    private static func echoedCookies(_ completion: TaskCompletion) -> [String: String] {
        let object = (try? JSONSerialization.jsonObject(with: Data(completion.responseData))) as? [String: Any]
        return object?["cookies"] as? [String: String] ?? [:]
    }

    @Test(arguments: WireProtocol.allCases) func aLoginThenARequestCarriesTheSessionCookie(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = SessionManager(transport: transport)
            // `/cookies/set` answers with Set-Cookie and a redirect to `/cookies`: the hop already carries them.
            let login = await completion(of: Request(url: server.baseURL.appending("/cookies/set?session=abc&theme=dark")), on: manager)
            #expect(Self.echoedCookies(login) == ["session": "abc", "theme": "dark"])
            let later = await completion(of: Request(url: server.baseURL.appending("/cookies")), on: manager)
            #expect(Self.echoedCookies(later) == ["session": "abc", "theme": "dark"])
            #expect(manager.cookieStorage?.cookies(for: server.baseURL).map(\.name).sorted() == ["session", "theme"])

            _ = await completion(of: Request(url: server.baseURL.appending("/cookies/delete?theme")), on: manager)
            let afterDelete = await completion(of: Request(url: server.baseURL.appending("/cookies")), on: manager)
            #expect(Self.echoedCookies(afterDelete) == ["session": "abc"])
        }
    }

    /// An event monitor sees each request as it goes to the transport: the first and the
    /// redirect's, each with the cookies the jar gave it.
    @Test(arguments: WireProtocol.allCases) func aMonitorSeesEachRequestAsSentWithItsCookies(over wire: WireProtocol) async throws {
        final class SentRequests: EventMonitor {
            let sent = Recorder<String>()
            func task(_ task: SessionTask, willSend request: Request) {
                self.sent.append("\(request.url.path) \(request.value(forHTTPHeaderField: "Cookie") ?? "-")")
            }
        }
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = SessionManager(transport: transport)
            let monitor = SentRequests()
            manager.eventMonitors.append(monitor)
            _ = await completion(of: Request(url: server.baseURL.appending("/cookies/set?session=abc")), on: manager)
            #expect(monitor.sent.all == ["/cookies/set -", "/cookies session=abc"])
        }
    }

    @Test(arguments: WireProtocol.allCases) func aRequestThatDoesNotHandleCookiesNeitherSendsNorKeepsThem(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = SessionManager(transport: transport)
            var login = Request(url: server.baseURL.appending("/cookies/set?ignored=1"))
            login.httpShouldHandleCookies = false
            #expect(Self.echoedCookies(await completion(of: login, on: manager)).isEmpty)
            #expect(manager.cookieStorage?.allCookies.isEmpty == true)

            _ = await completion(of: Request(url: server.baseURL.appending("/cookies/set?kept=1")), on: manager)
            var quiet = Request(url: server.baseURL.appending("/cookies"))
            quiet.httpShouldHandleCookies = false
            #expect(Self.echoedCookies(await completion(of: quiet, on: manager)).isEmpty)
            manager.cookieStorage = nil
            #expect(Self.echoedCookies(await completion(of: Request(url: server.baseURL.appending("/cookies")), on: manager)).isEmpty)
        }
    }

    /// A `Host` the caller sets decides whose cookies go and are kept, as curl does: two virtual
    /// hosts reached at one address never see each other's.
    @Test(arguments: WireProtocol.allCases) func virtualHostsAtOneAddressKeepTheirCookiesApart(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = SessionManager(transport: transport)
            let at = { (path: String, host: String?) in
                Request(url: server.baseURL.appending(path), headers: host.map { ["Host": $0] } ?? [:])
            }
            _ = await completion(of: at("/cookies/set?site=a", "A.example:8080"), on: manager)
            _ = await completion(of: at("/cookies/set?site=v6", "[fd00::1]:80"), on: manager)
            #expect(Self.echoedCookies(await completion(of: at("/cookies", "a.example"), on: manager)) == ["site": "a"])
            #expect(Self.echoedCookies(await completion(of: at("/cookies", "b.example"), on: manager)).isEmpty)
            #expect(Self.echoedCookies(await completion(of: at("/cookies", nil), on: manager)).isEmpty)
            let v6 = try #require(URL(string: "http://[fd00::1]/"))
            #expect(manager.cookieStorage?.cookies(for: v6).map(\.value) == ["v6"])
            // A Host that names no host a URL holds as written gets no cookie, neither the
            // address's nor a decoded name's, and Foundation never traps on it (pass 3).
            _ = await completion(of: at("/cookies/set?own=1", nil), on: manager)
            for odd in ["[::1%eth0]", "[a:/b]", "[a: b]", "a%2eexample", "a b", "@evil", "a/b", "[::1]x", "..", ":80"] {
                let echoed = await completion(of: at("/cookies", odd), on: manager)
                // An HTTP/2 server resets a stream whose :authority holds a space.
                let refused = wire == .http2 && odd.contains(" ")
                #expect((echoed.error == nil || refused) && Self.echoedCookies(echoed).isEmpty, "\(odd): \(echoed.error.map { "\($0)" } ?? "")")
            }
        }
    }

    @Test(arguments: WireProtocol.allCases) func theCallersOwnCookieHeaderIsKeptAndTheJarsAdded(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let manager = SessionManager(transport: transport)
            _ = await completion(of: Request(url: server.baseURL.appending("/cookies/set?jar=1")), on: manager)
            let mixed = await completion(of: Request(url: server.baseURL.appending("/cookies"), headers: ["Cookie": "own=2"]), on: manager)
            #expect(Self.echoedCookies(mixed) == ["own": "2", "jar": "1"])
        }
    }

    @Test func cookiesNeverFollowARedirectToAnotherHost() async throws {
        let server = try await LupineTestServer.start()
        // `other.test` is the same server under another name.
        let transport = NIOTransport(configuration: TransportConfiguration(hostAddresses: ["other.test": "127.0.0.1"]))
        let manager = SessionManager(transport: transport)
        _ = await completion(of: Request(url: server.baseURL.appending("/cookies/set?secret=1")), on: manager)
        let elsewhere = "http://other.test:\(server.port)/cookies"
        let target = server.baseURL.appending("/redirect-to?url=\(elsewhere.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        let redirected = await completion(of: Request(url: target), on: manager)
        #expect(redirected.response?.url.host == "other.test")
        #expect(Self.echoedCookies(redirected).isEmpty)
        // The same jar still sends it to its own host.
        #expect(Self.echoedCookies(await completion(of: Request(url: server.baseURL.appending("/cookies")), on: manager)) == ["secret": "1"])
        await transport.shutdown()
        await server.stop()
    }
}
