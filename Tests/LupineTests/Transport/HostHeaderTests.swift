import Foundation
import LupineTestServer
import NIOHTTP1
import Testing

@testable import Lupine
@testable import LupineTransport

/// A `Host` the caller sets is sent as it is, as curl sends `-H 'Host: …'` (a virtual host
/// reached by address); two are ambiguous and give way to the URL's; a redirect to another origin
/// drops it, as it drops credentials.
@Suite(.timeLimit(.minutes(5))) struct HostHeaderTests {
    @Test func aCallersHostIsSentAndTwoGiveWayToTheURLs() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let transport = NIOTransport()
        defer { Task { await transport.shutdown() } }
        let url = server.baseURL.appending(path: "headers")
        let authority = "\(try #require(url.host())):\(try #require(url.port))"
        let cases: [(HTTPHeaders, String)] = [
            ([:], authority),
            (["Host": "vhost.example"], "vhost.example"),
            (["host": "vhost.example:8080"], "vhost.example:8080"),
            (["Host": "one.example", "Host": "two.example"], authority),
        ]
        for (headers, expected) in cases {
            let (_, body) = try await transport.fetch(TransportRequest(url: url, headers: headers, cancellation: TransportCancellation()))
            let echoed = body.jsonObject?["headers"] as? [String: Any]
            #expect(echoed?["Host"] as? String == expected, "\(headers)")
        }
    }

    @Test func aRedirectToAnotherOriginDropsIt() async throws {
        let first = try await LupineTestServer.start()
        defer { Task { await first.stop() } }
        let second = try await LupineTestServer.start()
        defer { Task { await second.stop() } }
        let manager = HTTPSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let target = second.baseURL.appending(path: "headers").absoluteString
        let sameOrigin = try await manager.request(.GET, first.baseURL.absoluteString + "/redirect-to?url=/headers", headers: ["Host": "vhost.example"], serializer: JSONResponseSerializer())
        #expect(((sameOrigin.value as? [String: Any])?["headers"] as? [String: Any])?["Host"] as? String == "vhost.example")
        let elsewhere = try await manager.request(.GET, first.baseURL.absoluteString + "/redirect-to?url=\(target)", headers: ["Host": "vhost.example"], serializer: JSONResponseSerializer())
        let host = ((elsewhere.value as? [String: Any])?["headers"] as? [String: Any])?["Host"] as? String
        #expect(host == "\(try #require(second.baseURL.host())):\(try #require(second.baseURL.port))")
    }

    /// A `Host` names another target, so the cache keeps its answer apart from the URL's.
    @Test func theCacheKeepsAnotherHostsAnswerApart() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let manager = HTTPSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.urlCache = HTTPCache(memoryCapacity: 1 << 20)
        let url = server.baseURL.absoluteString + "/cache/600"
        func echoedHost(_ headers: [String: String]?) async throws -> String? {
            let response = try await manager.request(.GET, url, headers: headers, serializer: JSONResponseSerializer())
            return ((response.value as? [String: Any])?["headers"] as? [String: Any])?["Host"] as? String
        }
        let authority = "\(try #require(server.baseURL.host())):\(try #require(server.baseURL.port))"
        #expect(try await echoedHost(["Host": "a.example"]) == "a.example")
        #expect(try await echoedHost(["Host": "b.example"]) == "b.example")
        #expect(try await echoedHost(nil) == authority)
        #expect(try await echoedHost(["Host": "A.example"]) == "a.example", "answered from the cache")
    }
}
