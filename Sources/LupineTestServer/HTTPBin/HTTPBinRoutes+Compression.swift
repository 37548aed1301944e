import CompressNIO
import Hummingbird

extension HTTPBinRoutes {
    /// `/gzip`, `/deflate` (httpbin JSON, compressed) and `/gzip-bomb` (10 MiB of zeros gzipped to
    /// about 10 KiB, for decompression-limit tests).
    func registerCompression(on router: Router<Context>) {
        router.get("/gzip") { request, context in
            try await compressedEcho(flag: "gzipped", algorithm: .gzip(), encoding: "gzip", request, context)
        }
        router.get("/deflate") { request, context in
            try await compressedEcho(flag: "deflated", algorithm: .zlib(), encoding: "deflate", request, context)
        }
        router.get("/gzip-bomb") { _, _ in
            var zeros = ByteBuffer(repeating: 0, count: Self.gzipBombSize)
            let compressed = try zeros.compress(with: .gzip())
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream", .contentEncoding: "gzip"],
                body: .init(byteBuffer: compressed)
            )
        }
    }

    /// Decompressed size of `/gzip-bomb`.
    static let gzipBombSize = 10 * 1024 * 1024

    private func compressedEcho(
        flag: String,
        algorithm: CompressionAlgorithm,
        encoding: String,
        _ request: Request,
        _ context: Context
    ) async throws -> Response {
        var object = try await echo(request, context).object([.headers, .method, .origin])
        object[flag] = .bool(true)
        var plain = try JSONValue.object(object).encoded()
        let compressed = try plain.compress(with: algorithm)
        return Response(
            status: .ok,
            headers: [.contentType: "application/json", .contentEncoding: encoding],
            body: .init(byteBuffer: compressed)
        )
    }
}
