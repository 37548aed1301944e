import CompressNIO
import Hummingbird

extension HTTPBinRoutes {
    /// Lupine's additions for decompression tests: `POST /gzip-body` answers with the request body
    /// gzipped (so a test chooses what is compressed), `POST /encoded/:codings` with it in each of
    /// a comma-separated list of codings in turn (`gzip,br`: gzip, then br), and
    /// `/gzip-zeros/:n` streams `n` zero bytes gzipped as they are asked for, so a 1 GiB bomb
    /// costs the server about 1 MB at a time.
    func registerCompressedStreams(on router: Router<Context>) {
        router.post("/encoded/:codings") { request, context in
            var body = try await request.body.collect(upTo: Self.gzipBodyLimit)
            let codings = (context.parameters.get("codings") ?? "").split(separator: ",").map(String.init)
            for coding in codings {
                body = try Self.encode(body, as: coding)
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: request.headers[.contentType] ?? "application/octet-stream",
                    .contentEncoding: codings.joined(separator: ", "),
                ],
                body: .init(byteBuffer: body)
            )
        }
        router.post("/gzip-body") { request, _ in
            var body = try await request.body.collect(upTo: Self.gzipBodyLimit)
            let compressed = try body.compress(with: .gzip())
            return Response(
                status: .ok,
                headers: [.contentType: request.headers[.contentType] ?? "application/octet-stream", .contentEncoding: "gzip"],
                body: .init(byteBuffer: compressed)
            )
        }
        router.get("/gzip-zeros/:n") { _, context in
            let count = try Self.integer("n", in: context, range: 1...(1 << 34))
            let body = ResponseBody { writer in
                let compressor = CompressionAlgorithm.gzip().compressor
                compressor.window = ByteBufferAllocator().buffer(capacity: 64 * 1024)
                try compressor.startStream()
                var remaining = count
                while remaining > 0 {
                    var zeros = ByteBuffer(repeating: 0, count: min(1 << 20, remaining))
                    remaining -= zeros.readableBytes
                    try await zeros.compressStream(with: compressor, flush: remaining == 0 ? .finish : .no) { window in
                        try await writer.write(window)
                    }
                }
                try compressor.finishStream()
                try await writer.finish(nil)
            }
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream", .contentEncoding: "gzip"],
                body: body
            )
        }
    }

    /// The largest body `/gzip-body` compresses.
    static let gzipBodyLimit = 16 * 1024 * 1024
}
