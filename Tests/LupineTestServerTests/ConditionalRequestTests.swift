import Foundation
import LupineTestSupport
import Testing

@Suite("Conditional requests and caching")
struct ConditionalRequestTests {
    @Test func etagAnswersIfNoneMatchAndIfMatch() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let plain = try await client.request("GET", "/etag/abc")
            #expect(plain.status == 200)
            #expect(plain.header("ETag") == "\"abc\"")

            let notModified = try await client.request("GET", "/etag/abc", headers: [("If-None-Match", "\"abc\"")])
            #expect(notModified.status == 304)
            #expect(notModified.header("ETag") == "\"abc\"")

            let stillChanged = try await client.request("GET", "/etag/abc", headers: [("If-None-Match", "\"xyz\"")])
            #expect(stillChanged.status == 200)

            let failed = try await client.request("GET", "/etag/abc", headers: [("If-Match", "\"xyz\"")])
            #expect(failed.status == 412)
        }
    }

    @Test func cacheIsConditional() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let first = try await client.request("GET", "/cache")
            #expect(first.status == 200)
            let lastModified = try #require(first.header("Last-Modified"))
            #expect(first.header("ETag") != nil)

            let second = try await client.request("GET", "/cache", headers: [("If-Modified-Since", lastModified)])
            #expect(second.status == 304)

            let maxAge = try await client.request("GET", "/cache/60")
            #expect(maxAge.header("Cache-Control") == "public, max-age=60")
        }
    }
}
