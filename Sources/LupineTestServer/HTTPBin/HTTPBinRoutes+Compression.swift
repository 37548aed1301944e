import CLupineCodings
import CompressNIO
import Hummingbird

extension HTTPBinRoutes {
    /// `/gzip`, `/deflate`, `/brotli` (httpbin JSON, encoded), `/zstd` (the same, Lupine's
    /// addition), `/gzip-bomb` (10 MiB of zeros gzipped to about 10 KiB, for decompression-limit
    /// tests) and `/bomb/:coding` (64 MiB of zeros in `gzip`, `br` or `zstd`).
    func registerCompression(on router: Router<Context>) {
        router.get("/gzip") { request, context in
            try await compressedEcho(flag: "gzipped", coding: "gzip", request, context)
        }
        router.get("/deflate") { request, context in
            try await compressedEcho(flag: "deflated", coding: "deflate", request, context)
        }
        router.get("/brotli") { request, context in
            try await compressedEcho(flag: "brotli", coding: "br", request, context)
        }
        router.get("/zstd") { request, context in
            try await compressedEcho(flag: "zstd", coding: "zstd", request, context)
        }
        router.get("/bomb/:coding") { _, context in
            let coding = context.parameters.get("coding") ?? ""
            let encoded = try Self.encode(ByteBuffer(repeating: 0, count: Self.bombSize), as: coding)
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream", .contentEncoding: coding],
                body: .init(byteBuffer: encoded)
            )
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
    /// Decoded size of `/bomb/:coding`.
    static let bombSize = 64 * 1024 * 1024

    private func compressedEcho(flag: String, coding: String, _ request: Request, _ context: Context) async throws -> Response {
        var object = try await echo(request, context).object([.headers, .method, .origin])
        object[flag] = .bool(true)
        let plain = try JSONValue.object(object).encoded()
        return Response(
            status: .ok,
            headers: [.contentType: "application/json", .contentEncoding: coding],
            body: .init(byteBuffer: try Self.encode(plain, as: coding))
        )
    }

    /// `buffer` in `coding` (`gzip`, `deflate`, `br` or `zstd`); br and zstd need the system's
    /// libbrotlienc and libzstd.
    static func encode(_ buffer: ByteBuffer, as coding: String) throws -> ByteBuffer {
        var buffer = buffer
        switch coding {
        case "gzip":
            return try buffer.compress(with: .gzip())
        case "deflate":
            return try buffer.compress(with: .zlib())
        case "br", "zstd":
            let library = coding == "br" ? LUPINE_CODING_BROTLI : LUPINE_CODING_ZSTD
            let bound = lupine_encode_bound(library, buffer.readableBytes)
            guard bound > 0 else { throw HTTPError(.notImplemented, message: "\(coding) is not available here") }
            var encoded = ByteBuffer()
            encoded.reserveCapacity(bound)
            let length = buffer.withUnsafeReadableBytes { input in
                encoded.withUnsafeMutableWritableBytes { output in
                    lupine_encode(
                        library,
                        input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                        output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count
                    )
                }
            }
            guard length > 0 else { throw HTTPError(.internalServerError, message: "\(coding) encoding failed") }
            encoded.moveWriterIndex(forwardBy: length)
            return encoded
        default:
            throw HTTPError(.badRequest, message: "unknown coding \(coding)")
        }
    }
}
