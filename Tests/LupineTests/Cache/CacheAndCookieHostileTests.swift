import Foundation
import Lupine
import LupineTestServer
import NIOConcurrencyHelpers
import Testing

/// The ``HTTPCache`` in the session loop meeting requests whose final hop is not the request the
/// cache was asked about: a redirect to another URL, credentials that only become an
/// `Authorization` field on the way out, cookies the jar adds to each hop. Over loopback against
/// the counted endpoint.
@Suite struct CacheAndCookieHostileTests {
    /// `/redirect-to` pointing at `target`, with a temporary (uncacheable) 302.
    private static func redirect(_ server: LupineTestServer, to target: URL) -> URL {
        let encoded = target.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return server.baseURL.appending("/redirect-to?url=\(encoded)")
    }

    /// `url` with `user` (and `password`) as its user information.
    private static func url(_ url: URL, user: String, password: String? = nil) throws -> URL {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.user = user
        components.password = password
        return try #require(components.url)
    }

    /// Requests `url` again and expects it sent, not served: the counted endpoint under `key`
    /// answers it as its second request.
    private static func expectSentAgain(_ url: URL, key: String, on manager: SessionManager, server: LupineTestServer) async {
        let again = await completion(of: Request(url: url), on: manager)
        #expect(again.cacheStatus == .miss, "\(key)")
        #expect(again.servedCount == 2, "\(key)")
        #expect(server.counted(key).requests == 2, "\(key)")
    }

    @Test func aResponseReachedThroughARedirectIsNotServedForTheURLThatRedirected() async throws {
        try await withServerAndTransport { server, transport in
            let manager = cachingManager(transport)
            let target = countedURL(server, "behind-redirect", [("Cache-Control", "max-age=60")])
            let start = Self.redirect(server, to: target)
            let first = await completion(of: Request(url: start), on: manager)
            #expect(first.response?.statusCode == 200)
            #expect(first.response?.url == target)
            // The 302 said nothing about caching: the next request must ask for it again, and
            // may be sent somewhere else this time.
            await Self.expectSentAgain(start, key: "behind-redirect", on: manager, server: server)
        }
    }

    @Test func aResponseThatVariesOnCookieIsNotServedOnceTheJarSendsOthers() async throws {
        try await withServerAndTransport { server, transport in
            let manager = cachingManager(transport)
            let url = countedURL(server, "vary-cookie", [("Cache-Control", "max-age=60"), ("Vary", "Cookie")])
            _ = await completion(of: Request(url: server.baseURL.appending("/cookies/set?user=alice")), on: manager)
            #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .miss)
            // The same cookies: the same variant.
            #expect(await completion(of: Request(url: url), on: manager).cacheStatus == .hit)
            // Another user logs in on the same session: alice's page is not bob's.
            _ = await completion(of: Request(url: server.baseURL.appending("/cookies/set?user=bob")), on: manager)
            await Self.expectSentAgain(url, key: "vary-cookie", on: manager, server: server)
        }
    }

    @Test func aResponseToCredentialsInTheURLIsNotServedToARequestWithoutThem() async throws {
        try await withServerAndTransport { server, transport in
            let manager = cachingManager(transport)
            let plain = countedURL(server, "userinfo", [("Cache-Control", "max-age=60")])
            let own = await completion(of: Request(url: try Self.url(plain, user: "alice", password: "secret")), on: manager)
            #expect(own.response?.statusCode == 200)
            // Alice's response said neither public, s-maxage nor must-revalidate: it is hers only.
            await Self.expectSentAgain(plain, key: "userinfo", on: manager, server: server)

            // One that says `public` may be stored and shared.
            let shared = countedURL(server, "userinfo-public", [("Cache-Control", "public, max-age=60")])
            _ = await completion(of: Request(url: try Self.url(shared, user: "alice")), on: manager)
            #expect(await completion(of: Request(url: shared), on: manager).cacheStatus == .hit)
        }
    }

    @Test func aStreamedResponseToCredentialsInTheURLIsNotStoredOnDiskEither() async throws {
        try await withServerAndTransport { server, transport in
            let directory = try temporaryFolder()
            defer { try? FileManager.default.removeItem(at: directory) }
            let cache = try HTTPCache(memoryCapacity: 0, diskCapacity: 1024 * 1024, directory: directory)
            let manager = cachingManager(transport, cache: cache)
            let plain = countedURL(server, "userinfo-stream", [("Cache-Control", "max-age=60")])
            let received = NIOLockedValueBox(0)
            _ = try await manager.stream(Request(url: try Self.url(plain, user: "alice", password: "secret"))) { chunk in
                received.withLockedValue { $0 += chunk.readableBytes }
            }
            #expect(received.withLockedValue { $0 } > 0)
            #expect(cache.currentDiskUsage == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }
}
