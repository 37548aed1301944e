import Foundation
import Hummingbird

extension HTTPBinRoutes {
    /// The counted cache endpoints (ours; httpbin has none), for testing HTTP caches: each request
    /// answers with caller-chosen headers and is counted per key, so a test can prove that a fresh
    /// hit sent nothing and that a revalidation sent exactly one conditional request.
    ///
    /// - `/counted/:key?Header=value&...&status=N` (GET, POST, PUT, PATCH, DELETE, OPTIONS, and
    ///   `M-SEARCH` as a method no cache knows): every query parameter but
    ///   `status` becomes a response header (repeatable; `Content-Length` ignored; `{count}` in
    ///   a value is replaced by the request's count, so a header can change between requests),
    ///   `status` (200...599, default 200) the status. The body is JSON:
    ///   `{"key", "count", "method", "headers"}`, `count` being this request's number under the
    ///   key and `headers` the request's fields, so a response tells which request it answered
    ///   (a cached one keeps an older count). A request whose `If-None-Match` names the chosen
    ///   `ETag`, or whose `If-Modified-Since` equals the chosen `Last-Modified` byte for byte, gets
    ///   `304 Not Modified` with the chosen headers (but not `Content-Type`) instead, and is also
    ///   counted as conditional.
    /// - `GET /counted/:key/count`: `{"key", "requests", "conditional"}`, not itself counted.
    ///
    /// In-process tests read the same counts with ``LupineTestServer/attempts(forKey:)``, under
    /// `counted-KEY` and `counted-KEY-conditional`.
    func registerCounted(on router: Router<Context>) {
        // NIO's conversion to HTTPTypes names M-SEARCH `MSEARCH`: either spelling is routed here.
        let methods = Self.anyMethod + ["M-SEARCH", "MSEARCH"].compactMap { HTTPRequest.Method($0) }
        on("/counted/:key", methods: methods, router: router) { request, context in
            let key = try Self.attemptKey(context)
            let count = attempts.increment("counted-\(key)")
            let (status, headers) = try Self.chosenHead(request, count: count)
            if Self.isSatisfiedCondition(request, headers) {
                _ = attempts.increment("counted-\(key)-conditional")
                var notModified = headers
                notModified[.contentType] = nil
                return Response(status: .notModified, headers: notModified)
            }
            let requestHeaders = request.headers.map { (name: $0.name.rawName, value: JSONValue.string($0.value)) }
            let body = JSONValue.object([
                "key": .string(key),
                "count": .integer(count),
                "method": .string(request.method.rawValue),
                "headers": JSONValue.multiValueObject(requestHeaders),
            ])
            var response = try Response.json(body, status: status)
            if headers[.contentType] != nil {
                // The caller's type replaces the JSON one.
                response.headers[.contentType] = nil
            }
            response.headers.append(contentsOf: headers)
            return response
        }
        router.get("/counted/:key/count") { _, context in
            let key = try Self.attemptKey(context)
            return try Response.json(
                .object([
                    "key": .string(key),
                    "requests": .integer(attempts.count("counted-\(key)")),
                    "conditional": .integer(attempts.count("counted-\(key)-conditional")),
                ]))
        }
    }

    /// The status and header fields a counted request asked for in its query.
    private static func chosenHead(_ request: Request, count: Int) throws -> (HTTPResponse.Status, HTTPFields) {
        var status = HTTPResponse.Status.ok
        var headers = HTTPFields()
        for pair in FormURLEncoding.parse(request.uri.query ?? "") {
            if pair.name == "status" {
                guard let code = Int(pair.value), (200...599).contains(code) else {
                    throw HTTPError(.badRequest, message: "status must be a number from 200 to 599")
                }
                status = HTTPResponse.Status(code: code)
                continue
            }
            guard let name = HTTPFieldName(pair.name) else {
                throw HTTPError(.badRequest, message: "Invalid header name \(pair.name)")
            }
            guard name != .contentLength else { continue }
            headers[values: name].append(pair.value.replacingOccurrences(of: "{count}", with: String(count)))
        }
        return (status, headers)
    }

    /// Whether `request`'s conditions match the chosen validators, so a 304 answers it.
    private static func isSatisfiedCondition(_ request: Request, _ headers: HTTPFields) -> Bool {
        if let tags = EntityTagList(request.headers[.ifNoneMatch]) {
            guard let chosen = EntityTagList(headers[.eTag]) else { return false }
            return chosen.tags.contains { tags.matches($0) }
        }
        if let since = request.headers[.ifModifiedSince], let modified = headers[.lastModified] {
            return since == modified
        }
        return false
    }
}
