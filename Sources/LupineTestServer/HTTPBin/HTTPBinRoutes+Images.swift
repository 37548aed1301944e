import Hummingbird

extension HTTPBinRoutes {
    /// httpbin's images, each a real encoded image: `/image/png` (16×16, or `?size=W×H` — `x`
    /// also separates — up to ``PNGImage/maximumSide`` a side; with `&chunk=N` streamed in
    /// chunks of N bytes, with no length), `/image/jpeg`, `/image/webp` (lossless), `/image/gif`,
    /// `/image/svg`, and `/image`, which picks by `Accept`.
    ///
    /// Every request is counted under its path and query as sent (`/image/png?size=850x300`),
    /// which ``LupineTestServer/requests(forPath:)`` reads: tests see how many requests a client
    /// really made.
    func registerImages(on router: Router<Context>) {
        router.get("/image/png") { request, _ in
            self.countImageRequest(request)
            let (width, height) = try Self.requestedSize(request)
            let png = try PNGImage.sample(width: width, height: height)
            guard let chunk = try Self.requestedChunkSize(request) else {
                return Response.bytes(png, contentType: "image/png")
            }
            let body = ResponseBody { writer in
                for start in stride(from: 0, to: png.count, by: chunk) {
                    try await writer.write(ByteBuffer(bytes: png[start..<min(start + chunk, png.count)]))
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "image/png"], body: body)
        }
        self.registerImage("/image/jpeg", JPEGImage.sample, contentType: "image/jpeg", on: router)
        self.registerImage("/image/webp", WebPImage.sample, contentType: "image/webp", on: router)
        self.registerImage("/image/gif", GIFImage.sample, contentType: "image/gif", on: router)
        self.registerImage("/image/svg", Array(Self.svg.utf8), contentType: "image/svg+xml", on: router)
        router.get("/image") { request, _ in
            self.countImageRequest(request)
            let accept = (request.headers[.accept] ?? "").lowercased()
            if accept.contains("image/webp") {
                return Response.bytes(WebPImage.sample, contentType: "image/webp")
            }
            if accept.contains("image/svg+xml") {
                return Response.bytes(Array(Self.svg.utf8), contentType: "image/svg+xml")
            }
            if accept.contains("image/jpeg") {
                return Response.bytes(JPEGImage.sample, contentType: "image/jpeg")
            }
            if accept.contains("image/png") || accept.contains("image/*") {
                return Response.bytes(try PNGImage.sample(), contentType: "image/png")
            }
            return try Response.json(
                .object([
                    "message": .string("Client did not request a supported media type."),
                    "accept": .array(["image/webp", "image/svg+xml", "image/jpeg", "image/png", "image/*"].map(JSONValue.string)),
                ]),
                status: .notAcceptable
            )
        }
    }

    /// The key a request for an image is counted under.
    static func imageRequestKey(_ path: String) -> String {
        "image-request \(path)"
    }

    private func registerImage(_ path: String, _ bytes: [UInt8], contentType: String, on router: Router<Context>) {
        router.get(RouterPath(path)) { request, _ in
            self.countImageRequest(request)
            return Response.bytes(bytes, contentType: contentType)
        }
    }

    private func countImageRequest(_ request: Request) {
        _ = attempts.increment(Self.imageRequestKey(request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")))
    }

    /// The `size=W×H` (or `WxH`) of a request for a PNG; 16×16 without one.
    private static func requestedSize(_ request: Request) throws -> (Int, Int) {
        guard let size = FormURLEncoding.parse(request.uri.query ?? "").last(where: { $0.name == "size" })?.value else { return (16, 16) }
        let sides = size.split(whereSeparator: { $0 == "x" || $0 == "X" || $0 == "×" }).map { Int($0) }
        guard sides.count == 2, let width = sides[0], let height = sides[1],
            (1...PNGImage.maximumSide).contains(width), (1...PNGImage.maximumSide).contains(height)
        else {
            throw HTTPError(.badRequest, message: "size must be W×H, each from 1 to \(PNGImage.maximumSide)")
        }
        return (width, height)
    }

    /// The `chunk=N` of a request for a PNG (1 to 65536), or `nil` without one.
    private static func requestedChunkSize(_ request: Request) throws -> Int? {
        guard let value = FormURLEncoding.parse(request.uri.query ?? "").last(where: { $0.name == "chunk" })?.value else { return nil }
        guard let chunk = Int(value), (1...65536).contains(chunk) else {
            throw HTTPError(.badRequest, message: "chunk must be from 1 to 65536 bytes")
        }
        return chunk
    }

    /// httpbin's SVG stand-in: a small drawing of our own.
    static let svg = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">
          <rect width="100" height="100" fill="#f4f1e8"/>
          <circle cx="50" cy="50" r="30" fill="#6b4fa0"/>
        </svg>

        """
}
