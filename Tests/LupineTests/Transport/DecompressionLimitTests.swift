import Foundation
import Lupine
import LupineTestServer
import NIOCore
import Testing

/// The decompression limit counts the whole body: a small, highly repetitive body inflates, a
/// bomb is stopped early with a typed error, and a size limit holds wherever the ratio is.
@Suite struct DecompressionLimitTests {
    /// A 70×70 transparent-black RGBA image as JSON, about 58 KB: the kind of ordinary body that
    /// gzip shrinks more than 250 times.
    private static let repetitiveJSON: [UInt8] = {
        let pixels = Array(repeating: "[0,0,0,255]", count: 70 * 70).joined(separator: ",")
        return Array(#"{"width":70,"height":70,"pixels":["#.utf8) + Array(pixels.utf8) + Array("]}".utf8)
    }()

    @Test(arguments: WireProtocol.allCases) func aHighlyRepetitiveJSONBodyInflatesWithTheDefaultLimit(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let json = Self.repetitiveJSON
            let request = TransportRequest(
                method: .POST,
                url: server.baseURL.appending("/gzip-body"),
                headers: ["Content-Type": "application/json"],
                body: .bytes(json),
                cancellation: TransportCancellation()
            )
            let (response, body) = try await transport.fetch(request)
            #expect(response.headers.first(name: "Content-Encoding") == "gzip")
            let compressed = try #require(response.headers.first(name: "Content-Length").flatMap(Int.init))
            #expect(json.count > 55_000 && json.count < 60_000)
            #expect(json.count / compressed > 200, "the case is only meaningful past a 200× ratio")
            #expect(Array(body.readableBytesView) == json)
        }
    }

    @Test(arguments: WireProtocol.allCases) func aStreamedGzipBombOfOneGiBFailsEarlyWithTheTypedError(over wire: WireProtocol) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let response = try await transport.execute(TransportRequest(url: server.baseURL.appending("/gzip-zeros/\(1 << 30)"), cancellation: TransportCancellation()))
            var delivered = 0
            await #expect {
                for try await chunk in response.body {
                    delivered += chunk.readableBytes
                    #expect(delivered <= 64 * 1024 * 1024, "the bomb must be stopped long before it is inflated")
                }
            } throws: { error in
                guard case TransportError.decompressionLimitExceeded(let inflated, let compressed, let limit) = error else {
                    return false
                }
                return limit == .default && inflated > 1024 * 1024 && inflated < 32 * 1024 * 1024 && compressed < 64 * 1024
                    && "\(error)".contains("decompression bomb")
            }
            #expect(delivered < 32 * 1024 * 1024)
        }
    }

    @Test(arguments: WireProtocol.allCases) func aSizeLimitStopsABodyWhateverItsRatio(over wire: WireProtocol) async throws {
        let limit = DecompressionLimit(maximumSize: 4 * 1024 * 1024, maximumRatio: nil)
        try await withServerAndTransport(over: wire, transport: .init(decompressionLimit: limit)) { server, transport in
            let (small, body) = try await transport.get(server.baseURL.appending("/gzip-zeros/\(3 * 1024 * 1024)"))
            #expect(small.status == .ok)
            #expect(body.readableBytes == 3 * 1024 * 1024)
            await #expect {
                _ = try await transport.get(server.baseURL.appending("/gzip-zeros/\(64 * 1024 * 1024)"))
            } throws: { error in
                guard case TransportError.decompressionLimitExceeded(let inflated, _, limit) = error else { return false }
                return inflated > 4 * 1024 * 1024 && inflated < 24 * 1024 * 1024
            }
        }
    }
}
