import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

@Suite("Generated bodies and ranges")
struct GeneratedBodyTests {
    @Test func deterministicBytesMatchTheDocumentedFormula() {
        for range in [0..<1, 250..<700, 65_000..<66_000, 16_777_000..<16_777_300] {
            let expected = range.map { UInt8(truncatingIfNeeded: ($0 &+ ($0 >> 8) &+ ($0 >> 16) &+ ($0 >> 24)) &* 31 &+ 7) }
            #expect(DeterministicBytes.bytes(in: range) == expected)
            #expect(DeterministicBytes.byte(at: range.lowerBound) == expected[0])
        }
        #expect(DeterministicBytes.bytes(in: 0..<256) != DeterministicBytes.bytes(in: 256..<512))
    }

    @Test func bytesServesTheDeterministicPattern() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/bytes/100000")
            #expect(response.status == 200)
            #expect(response.body == DeterministicBytes.bytes(in: 0..<100_000))
            #expect(response.header("Accept-Ranges") == "bytes")
            #expect(response.header("ETag") == "\"bytes-100000\"")
            #expect(response.header("Content-Length") == "100000")
        }
    }

    @Test func streamBytesIsChunked() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/stream-bytes/5000?chunk_size=1000")
            #expect(response.header("Transfer-Encoding")?.lowercased() == "chunked")
            #expect(response.body == DeterministicBytes.bytes(in: 0..<5000))
        }
    }

    @Test(arguments: [
        ("bytes=10-19", 10..<20),
        ("bytes=990-", 990..<1000),
        ("bytes=-5", 995..<1000),
        ("bytes=900-5000", 900..<1000),
    ])
    func rangeReturnsPartialContent(header: String, expected: Range<Int>) async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/bytes/1000", headers: [("Range", header)])
            #expect(response.status == 206)
            #expect(response.header("Content-Range") == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/1000")
            #expect(response.body == DeterministicBytes.bytes(in: expected))
        }
    }

    @Test func unsatisfiableRangeIs416() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/bytes/1000", headers: [("Range", "bytes=1000-")])
            #expect(response.status == 416)
            #expect(response.header("Content-Range") == "bytes */1000")
        }
    }

    @Test func ifRangeHonoursOnlyTheCurrentEntityTag() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let matching = try await client.request(
                "GET", "/range/100",
                headers: [("Range", "bytes=26-51"), ("If-Range", "\"range100\"")]
            )
            #expect(matching.status == 206)
            #expect(matching.text == "abcdefghijklmnopqrstuvwxyz")

            let stale = try await client.request(
                "GET", "/range/100",
                headers: [("Range", "bytes=26-51"), ("If-Range", "\"something-else\"")]
            )
            #expect(stale.status == 200)
            #expect(stale.body.count == 100)
        }
    }
}
