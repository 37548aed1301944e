import Hummingbird

/// The httpbin-compatible endpoints of the main listener.
///
/// Each family of endpoints is registered by an extension in its own file.
struct HTTPBinRoutes: Sendable {
    typealias Context = TestServerRequestContext
    typealias Handler = @Sendable (Request, Context) async throws -> Response

    /// Methods accepted by endpoints that take any method (`/anything`, `/status/:code`, ...).
    static let anyMethod: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .options]

    /// `http` or `https`, for echoed and absolute URLs.
    let scheme: String
    /// The limits on the request bodies the echo endpoints buffer.
    let bodyBudget: RequestBodyBudget
    /// The per-key request counts of the retry and bearer endpoints.
    let attempts: AttemptCounter
    /// The gates the gated endpoints wait at.
    let gates = RequestGates()

    /// Adds every endpoint to `router`.
    func register(on router: Router<Context>) {
        registerEcho(on: router)
        registerStatus(on: router)
        registerGeneratedBodies(on: router)
        registerRedirects(on: router)
        registerAuthentication(on: router)
        registerCompression(on: router)
        registerCompressedStreams(on: router)
        registerDocuments(on: router)
        registerImages(on: router)
        registerCaching(on: router)
        registerCookies(on: router)
        registerResponseHeaders(on: router)
        registerUpload(on: router)
        registerRetry(on: router)
        registerCounted(on: router)
        registerGates(on: router)
    }

    /// Routes `path` to `handler` for each of `methods`.
    func on(_ path: RouterPath, methods: [HTTPRequest.Method], router: Router<Context>, use handler: @escaping Handler) {
        for method in methods {
            router.on(path, method: method, use: handler)
        }
    }

    /// The echo builder for a request.
    func echo(_ request: Request, _ context: Context) -> RequestEcho {
        RequestEcho(request: request, context: context, scheme: scheme, bodyBudget: bodyBudget)
    }

    /// A JSON response holding the given echo fields.
    func echoResponse(
        _ fields: Set<RequestEcho.Field>,
        _ request: Request,
        _ context: Context,
        headers: HTTPFields = [:]
    ) async throws -> Response {
        try Response.json(.object(await echo(request, context).object(fields)), headers: headers)
    }

    /// The integer path parameter `name`, or a 400 error.
    static func integer(_ name: String, in context: Context, range: ClosedRange<Int> = 0...Int.max) throws -> Int {
        guard let value = context.parameters.get(name, as: Int.self), range.contains(value) else {
            throw HTTPError(.badRequest, message: "Path parameter \(name) must be an integer in \(range)")
        }
        return value
    }

    /// The integer query parameter `name`, `defaultValue` when absent, or a 400 error when it is not
    /// an integer in `range`.
    static func integer(
        _ name: String,
        in request: Request,
        default defaultValue: Int,
        range: ClosedRange<Int>
    ) throws -> Int {
        guard let text = FormURLEncoding.firstValue(named: name, in: request.uri.query) else {
            return defaultValue
        }
        guard let value = Int(text), range.contains(value) else {
            throw HTTPError(.badRequest, message: "Query parameter \(name) must be an integer in \(range)")
        }
        return value
    }

    /// The number query parameter `name`, `defaultValue` when absent, or a 400 error when not a number.
    static func number(_ name: String, in request: Request, default defaultValue: Double) throws -> Double {
        guard let text = FormURLEncoding.firstValue(named: name, in: request.uri.query) else {
            return defaultValue
        }
        guard let value = Double(text), value.isFinite else {
            throw HTTPError(.badRequest, message: "Query parameter \(name) must be a number")
        }
        return value
    }
}
