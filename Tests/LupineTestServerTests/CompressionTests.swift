import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Compressed responses")
struct CompressionTests {
    @Test(arguments: [("gzip", "gzipped"), ("deflate", "deflated")])
    func compressedEndpointsDecodeToHTTPBinJSON(encoding: String, flag: String) async throws {
        try await withServer { server in
            let client = try await server.connect()
            let raw = try await client.request("GET", "/\(encoding)", headers: [("Accept-Encoding", encoding)])
            #expect(raw.status == 200)
            #expect(raw.header("Content-Encoding") == encoding)
            #expect(throws: (any Error).self) { try raw.jsonObject() }

            // A session of its own: the shared one's connection cache outlives other tests' servers,
            // whose ports the kernel hands out again.
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            let (data, _) = try await session.data(from: server.baseURL.appendingPathComponent(encoding))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(json[flag] as? Bool == true)
            #expect(json["method"] as? String == "GET")
        }
    }

    @Test func gzipBombIsSmallOnTheWire() async throws {
        try await withServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/gzip-bomb")
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(Array(response.body.prefix(2)) == [0x1F, 0x8B])
            #expect(response.body.count < 100 * 1024)
        }
    }
}
