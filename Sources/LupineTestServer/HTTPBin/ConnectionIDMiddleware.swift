import Hummingbird

/// Stamps every main-listener response, errors included, with `X-Lupine-Connection-ID` and
/// `X-Lupine-Protocol` (`h2` for a request on an HTTP/2 stream, `http/1.1` for one on the connection).
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
        // An HTTP/1.1 request comes on the accepted channel itself; an HTTP/2 one on a stream
        // channel, a child of the accepted one.
        if let identifier = registry.connectionIdentifier(of: context.channel) {
            response.headers[.lupineConnectionID] = String(identifier)
            response.headers[.lupineProtocol] = "http/1.1"
        } else if let connection = context.channel.parent, let identifier = registry.connectionIdentifier(of: connection) {
            response.headers[.lupineConnectionID] = String(identifier)
            response.headers[.lupineProtocol] = "h2"
        }
        return response
    }
}
