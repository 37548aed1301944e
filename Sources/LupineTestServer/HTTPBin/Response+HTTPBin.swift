import Hummingbird

extension Response {
    /// A response whose body is `value` as pretty-printed JSON.
    static func json(
        _ value: JSONValue,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:]
    ) throws -> Response {
        buffer(try value.encoded(), contentType: "application/json", status: status, headers: headers)
    }

    /// A response with a fixed body and `Content-Type`.
    static func bytes(
        _ bytes: some Sequence<UInt8>,
        contentType: String,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:]
    ) -> Response {
        buffer(ByteBuffer(bytes: bytes), contentType: contentType, status: status, headers: headers)
    }

    /// A response whose body is `body`, with a `Content-Type`.
    static func buffer(
        _ body: ByteBuffer,
        contentType: String,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:]
    ) -> Response {
        var headers = headers
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// An empty response with a `Location` header.
    static func redirecting(to location: String, status: HTTPResponse.Status = .found) -> Response {
        Response(status: status, headers: [.location: location])
    }
}
