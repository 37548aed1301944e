import Hummingbird

extension HTTPBinRoutes {
    /// `/bytes/:n`, `/stream-bytes/:n`, `/range/:n`, `/drip` and `/delay/:s`.
    func registerGeneratedBodies(on router: Router<Context>) {
        let lengths = 0...GeneratedBody.maximumLength
        router.get("/bytes/:n") { request, context in
            let length = try Self.integer("n", in: context, range: lengths)
            return Self.rangedResponse(.deterministic(length: length), request: request)
        }
        router.get("/range/:n") { request, context in
            let length = try Self.integer("n", in: context, range: lengths)
            return Self.rangedResponse(.alphabet(length: length), request: request)
        }
        router.get("/stream-bytes/:n") { request, context in
            let length = try Self.integer("n", in: context, range: lengths)
            let chunkSize = try Self.integer("chunk_size", in: request, default: 10240, range: 1...(1 << 20))
            let body = GeneratedBody.deterministic(length: length)
                .responseBody(range: 0..<length, chunkSize: chunkSize, declaresLength: false)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
        }
        router.get("/drip") { request, _ in
            try await Self.drip(request)
        }
        on("/delay/:seconds", methods: Self.anyMethod, router: router) { request, context in
            guard let seconds = context.parameters.get("seconds", as: Double.self), seconds >= 0 else {
                throw HTTPError(.badRequest, message: "Delay must be a non-negative number of seconds")
            }
            try await Task.sleep(for: .seconds(min(seconds, 10)))
            return try await echoResponse([.args, .data, .files, .form, .headers, .origin, .url], request, context)
        }
    }

    /// Serves `body` honouring `Range` and `If-Range`, with `ETag` and `Accept-Ranges`.
    static func rangedResponse(_ body: GeneratedBody, request: Request) -> Response {
        var headers: HTTPFields = [
            .contentType: "application/octet-stream",
            .acceptRanges: "bytes",
            .eTag: body.entityTag,
        ]
        let rangeRequest = ByteRangeRequest(
            range: request.headers[.range],
            ifRange: request.headers[.ifRange],
            entityTag: body.entityTag,
            length: body.length
        )
        switch rangeRequest {
        case .full:
            return Response(status: .ok, headers: headers, body: body.responseBody(range: 0..<body.length))
        case .partial(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(body.length)"
            return Response(status: .partialContent, headers: headers, body: body.responseBody(range: range))
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(body.length)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
    }

    /// httpbin's `/drip`: after `delay` seconds, `numbytes` asterisks spread over `duration` seconds,
    /// with status `code`.
    private static func drip(_ request: Request) async throws -> Response {
        let duration = min(try number("duration", in: request, default: 2), 60)
        let delay = min(try number("delay", in: request, default: 0), 10)
        let count = try integer("numbytes", in: request, default: 10, range: 1...(10 * 1024 * 1024))
        let code = try integer("code", in: request, default: 200, range: 200...599)
        guard duration >= 0, delay >= 0 else {
            throw HTTPError(.badRequest, message: "duration and delay must not be negative")
        }
        if delay > 0 {
            try await Task.sleep(for: .seconds(delay))
        }
        let pause = Duration.seconds(duration / Double(count))
        let body = ResponseBody(contentLength: count) { writer in
            for _ in 0..<count {
                try await writer.write(ByteBuffer(string: "*"))
                try await Task.sleep(for: pause)
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .init(code: code),
            headers: [.contentType: "application/octet-stream"],
            body: body
        )
    }
}
