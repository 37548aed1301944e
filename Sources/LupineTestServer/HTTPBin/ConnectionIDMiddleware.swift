import Hummingbird

/// Stamps every main-listener response, errors included, with `X-Lupine-Connection-ID`.
struct ConnectionIDMiddleware: RouterMiddleware {
    typealias Context = TestServerRequestContext

    let registry: ConnectionRegistry

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        if let identifier = registry.connectionIdentifier(of: context.channel) {
            response.headers[.lupineConnectionID] = String(identifier)
        }
        return response
    }
}
