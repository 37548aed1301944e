import Hummingbird

extension HTTPBinRoutes {
    /// `/upload` (POST or PUT; Lupine's addition to httpbin): reads the request body as it
    /// streams in, keeps none of it, and answers how many bytes arrived and how it was framed,
    /// so uploads of any size can be measured.
    func registerUpload(on router: Router<Context>) {
        on("/upload", methods: [.post, .put], router: router) { request, _ in
            var received = 0
            for try await buffer in request.body {
                received += buffer.readableBytes
            }
            return try Response.json(
                .object([
                    "bytes": .number(Double(received)),
                    "content_length": request.headers[.contentLength].map(JSONValue.string) ?? .null,
                    "content_type": request.headers[.contentType].map(JSONValue.string) ?? .null,
                ])
            )
        }
    }
}
