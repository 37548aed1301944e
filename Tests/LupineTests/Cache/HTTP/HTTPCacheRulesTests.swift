import Foundation
import Lupine
import LupineTestServer
import Testing

/// RFC 9111's rules as a session meets them over loopback, each proved by what the counted
/// endpoint saw: freshness from `Expires`, `Last-Modified` and `Age`, request directives,
/// `Authorization`, and invalidation through `Location`.
@Suite struct HTTPCacheRulesTests {
    /// `date` as an IMF-fixdate.
    private static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// Sends `url` twice (the second time with `headers`) and returns the second completion.
    private static func twice(_ url: URL, on manager: SessionManager, headers: HTTPHeaders = [:]) async -> TaskCompletion {
        _ = await completion(of: Request(url: url), on: manager)
        return await completion(of: Request(url: url, headers: headers), on: manager)
    }

    @Test func freshnessComesFromExpiresLastModifiedAndAge() async throws {
        try await withServerAndTransport { server, transport in
            let manager = cachingManager(transport)
            let cases: [(key: String, headers: [(String, String)], hit: Bool)] = [
                ("expires-ahead", [("Expires", Self.httpDate(Date() + 3600))], true),
                ("expires-zero", [("Expires", "0")], false),
                ("expires-past", [("Expires", Self.httpDate(Date() - 3600))], false),
                // Heuristic freshness: a tenth of the ten days since the last change.
                ("heuristic", [("Last-Modified", Self.httpDate(Date() - 10 * 86400))], true),
                ("no-freshness", [], false),
                // Already older than its lifetime when it arrives.
                ("aged", [("Cache-Control", "max-age=60"), ("Age", "100")], false),
                ("max-age-beats-expires", [("Cache-Control", "max-age=60"), ("Expires", "0")], true),
                ("bad-max-age", [("Cache-Control", "max-age=abc")], false),
            ]
            for (key, headers, hit) in cases {
                let second = await Self.twice(countedURL(server, key, headers), on: manager)
                #expect(second.cacheStatus == (hit ? .hit : .miss), "\(key)")
                #expect(server.counted(key).requests == (hit ? 1 : 2), "\(key)")
            }
        }
    }

    @Test func requestDirectivesNarrowOrWidenWhatIsFreshEnough() async throws {
        try await withServerAndTransport { server, transport in
            let manager = cachingManager(transport)
            let fresh = countedURL(server, "min-fresh", [("Cache-Control", "max-age=60"), ("ETag", "\"f\"")])
            #expect(await Self.twice(fresh, on: manager, headers: ["Cache-Control": "min-fresh=120"]).cacheStatus == .revalidated)
            #expect(await completion(of: Request(url: fresh, headers: ["Cache-Control": "max-age=0"]), on: manager).cacheStatus == .revalidated)
            #expect(await completion(of: Request(url: fresh, headers: ["Cache-Control": "min-fresh=10"]), on: manager).cacheStatus == .hit)
            #expect(server.counted("min-fresh") == (3, 2))

            let stale = countedURL(server, "max-stale", [("Cache-Control", "max-age=0"), ("ETag", "\"s\"")])
            #expect(await Self.twice(stale, on: manager, headers: ["Cache-Control": "max-stale=600"]).cacheStatus == .stale)
            #expect(server.counted("max-stale").requests == 1)

            let strict = countedURL(server, "must-revalidate", [("Cache-Control", "max-age=0, must-revalidate"), ("ETag", "\"m\"")])
            #expect(await Self.twice(strict, on: manager, headers: ["Cache-Control": "max-stale=600"]).cacheStatus == .revalidated)
            #expect(server.counted("must-revalidate") == (2, 1))
        }
    }

    @Test func aResponseToAnAuthorizedRequestIsStoredOnlyWhenItSaysSo() async throws {
        try await withServerAndTransport { server, transport in
            let manager = cachingManager(transport)
            let authorized: HTTPHeaders = ["Authorization": "Bearer secret"]
            for (key, control, stored) in [("private-auth", "max-age=60", false), ("public-auth", "public, max-age=60", true)] {
                let url = countedURL(server, key, [("Cache-Control", control)])
                _ = await completion(of: Request(url: url, headers: authorized), on: manager)
                let second = await completion(of: Request(url: url, headers: authorized), on: manager)
                #expect(second.cacheStatus == (stored ? .hit : .miss), "\(key)")
                #expect(server.counted(key).requests == (stored ? 1 : 2), "\(key)")
            }
        }
    }

    @Test func anUnsafeRequestInvalidatesTheURIItsLocationNames() async throws {
        try await withServerAndTransport { server, transport in
            let manager = cachingManager(transport)
            let target = countedURL(server, "located", [("Cache-Control", "max-age=60")])
            _ = await completion(of: Request(url: target), on: manager)
            #expect(await completion(of: Request(url: target), on: manager).cacheStatus == .hit)
            let creator = countedURL(server, "creator", [("Location", target.absoluteString)], status: 201)
            let created = await completion(of: Request(url: creator, method: .POST, body: .bytes([1])), on: manager)
            #expect(created.response?.statusCode == 201)
            #expect(await completion(of: Request(url: target), on: manager).cacheStatus == .miss)
            // A failed unsafe request invalidates nothing.
            #expect(await completion(of: Request(url: target), on: manager).cacheStatus == .hit)
            let refused = countedURL(server, "refuser", [("Location", target.absoluteString)], status: 500)
            _ = await completion(of: Request(url: refused, method: .POST, body: .bytes([1])), on: manager)
            #expect(await completion(of: Request(url: target), on: manager).cacheStatus == .hit)
        }
    }
}
