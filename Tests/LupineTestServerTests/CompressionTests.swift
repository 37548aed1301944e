import Foundation
import LupineTestSupport
import Testing

@Suite("Compressed responses")
struct CompressionTests {
    @Test(.enabled(if: Curl.isInstalled), arguments: [("gzip", "gzipped"), ("deflate", "deflated")])
    func compressedEndpointsDecodeToHTTPBinJSON(encoding: String, flag: String) async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let raw = try await client.request("GET", "/\(encoding)", headers: [("Accept-Encoding", encoding)])
            #expect(raw.status == 200)
            #expect(raw.header("Content-Encoding") == encoding)
            #expect(throws: (any Error).self) { try raw.jsonObject() }

            // curl, an independent client, inflates it (URLSession on Linux was seen to fail to
            // connect here at once, for no reason of the server's).
            let curl = try await Curl.run(["-sS", "--compressed", server.baseURL.appendingPathComponent(encoding).absoluteString])
            #expect(curl.status == 0, "\(curl.stderr)")
            let data = curl.stdout
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(json[flag] as? Bool == true)
            #expect(json["method"] as? String == "GET")
        }
    }

    @Test func gzipBombIsSmallOnTheWire() async throws {
        try await withTestServer { server in
            let client = try await server.connect()
            let response = try await client.request("GET", "/gzip-bomb")
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(Array(response.body.prefix(2)) == [0x1F, 0x8B])
            #expect(response.body.count < 100 * 1024)
        }
    }
}
