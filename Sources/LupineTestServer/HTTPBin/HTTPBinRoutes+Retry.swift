import Foundation
import Hummingbird

extension HTTPBinRoutes {
    /// The longest key, in UTF-8 bytes, the counting endpoints accept (400 beyond it), so the
    /// counter's memory stays bounded.
    static let maximumAttemptKeyLength = 200

    /// The retry endpoints (ours; httpbin has none), each request to them counted per key:
    /// - `/retry/:key/fail/:n?status=503`: the first `n` requests answer `status` (400...599,
    ///   default 503), later ones 200 `{"attempt": k, "key": key}`;
    /// - `/retry/:key/retry-after/:n?status=503&after=VALUE` or `...&date=SECONDS`: as `fail`, with
    ///   `Retry-After: VALUE` passed through as given, or an HTTP-date `SECONDS` from now (negative:
    ///   in the past);
    /// - `GET /retry/:key/attempts`: `{"key": key, "attempts": count}`, not itself counted;
    /// - `DELETE /retry/:key`: forgets the key's count.
    func registerRetry(on router: Router<Context>) {
        on("/retry/:key/fail/:n", methods: Self.anyMethod, router: router) { request, context in
            let (key, failures, status) = try Self.retryParameters(request, context)
            return try Self.countedAnswer(key: key, attempt: attempts.increment(key), failures: failures, status: status)
        }
        on("/retry/:key/retry-after/:n", methods: Self.anyMethod, router: router) { request, context in
            let (key, failures, status) = try Self.retryParameters(request, context)
            let retryAfter = try Self.retryAfterValue(in: request)
            return try Self.countedAnswer(
                key: key,
                attempt: attempts.increment(key),
                failures: failures,
                status: status,
                headers: [.retryAfter: retryAfter]
            )
        }
        router.get("/retry/:key/attempts") { _, context in
            let key = try Self.attemptKey(context)
            return try Response.json(.object(["key": .string(key), "attempts": .integer(attempts.count(key))]))
        }
        router.delete("/retry/:key") { _, context in
            let key = try Self.attemptKey(context)
            attempts.reset(key)
            return try Response.json(.object(["key": .string(key), "attempts": .integer(0)]))
        }
    }

    /// The path parameter `key`, or a 400 error when it is longer than ``maximumAttemptKeyLength``.
    static func attemptKey(_ context: Context, parameter: String = "key") throws -> String {
        let key = try context.parameters.require(parameter)
        guard key.utf8.count <= Self.maximumAttemptKeyLength else {
            throw HTTPError(.badRequest, message: "Path parameter \(parameter) must be at most \(Self.maximumAttemptKeyLength) bytes")
        }
        return key
    }

    /// The key, the number of failures and the failure status of a retry endpoint's request.
    private static func retryParameters(_ request: Request, _ context: Context) throws -> (String, Int, Int) {
        let key = try Self.attemptKey(context)
        let failures = try Self.integer("n", in: context)
        let status = try Self.integer("status", in: request, default: 503, range: 400...599)
        return (key, failures, status)
    }

    /// The `Retry-After` value a retry-after request asks for: `after` as given (at most 256 bytes;
    /// bytes HTTP does not allow in a field become spaces), or the HTTP-date `date` seconds from
    /// now; exactly one of the two.
    private static func retryAfterValue(in request: Request) throws -> String {
        let query = request.uri.query
        let after = FormURLEncoding.firstValue(named: "after", in: query)
        let hasDate = FormURLEncoding.firstValue(named: "date", in: query) != nil
        switch (after, hasDate) {
        case (let after?, false):
            guard after.utf8.count <= 256 else {
                throw HTTPError(.badRequest, message: "Query parameter after must be at most 256 bytes")
            }
            return after
        case (nil, true):
            let offset = try Self.integer("date", in: request, default: 0, range: -1_000_000_000...1_000_000_000)
            return HTTPDate.string(from: Date(timeIntervalSinceNow: TimeInterval(offset)))
        default:
            throw HTTPError(.badRequest, message: "Give exactly one of the query parameters after and date")
        }
    }

    /// `status` while `attempt` is at most `failures`, then 200; a small JSON body either way.
    private static func countedAnswer(
        key: String,
        attempt: Int,
        failures: Int,
        status: Int,
        headers: HTTPFields = [:]
    ) throws -> Response {
        let body: JSONValue = .object(["attempt": .integer(attempt), "key": .string(key)])
        guard attempt <= failures else { return try Response.json(body) }
        return try Response.json(body, status: .init(code: status), headers: headers)
    }
}
