import Hummingbird

extension HTTPBinRoutes {
    /// `/response-headers?name=value`: sets each query parameter as a response header and echoes the
    /// response's headers as JSON, `Content-Length` included, as httpbin does.
    func registerResponseHeaders(on router: Router<Context>) {
        on("/response-headers", methods: [.get, .post], router: router) { request, _ in
            let pairs = FormURLEncoding.parse(request.uri.query ?? "")
                .filter { $0.name.lowercased() != "content-length" }
            var headers: HTTPFields = [.contentType: "application/json"]
            for pair in pairs {
                guard let name = HTTPFieldName(pair.name) else {
                    throw HTTPError(.badRequest, message: "Invalid header name \(pair.name)")
                }
                if name == .contentType {
                    headers[.contentType] = nil
                }
                headers[values: name].append(pair.value)
            }
            let body = try Self.selfDescribingBody(headers)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
        }
    }

    /// A JSON object of `headers` plus the `Content-Length` of that very JSON, found by iterating
    /// until the length stops changing.
    private static func selfDescribingBody(_ headers: HTTPFields) throws -> ByteBuffer {
        var pairs: [(name: String, value: JSONValue)] = headers.map { ($0.name.rawName, .string($0.value)) }
        pairs.append(("Content-Length", .string("0")))
        var body = ByteBuffer()
        for _ in 0..<4 {
            let previousLength = body.readableBytes
            pairs[pairs.count - 1].value = .string(String(previousLength))
            body = try JSONValue.multiValueObject(pairs).encoded()
            if body.readableBytes == previousLength { break }
        }
        return body
    }
}
