import Hummingbird
import NIOCore

/// Meets the `Expect` field of main-listener requests (RFC 9110 §10.1.1).
///
/// - `100-continue`: the request's body is wrapped so that its first read asks the connection's
///   ``ContinueResponseHandler`` for the interim `100 Continue`; a handler that answers without
///   reading the body (a 413 for a declared `Content-Length` over the limit, for one) sends its
///   final status alone, and the client need not send the body at all.
/// - Any other expectation: 417 Expectation Failed, closing the connection (the body the request
///   declared may or may not follow, so the connection's framing cannot be trusted), as Apache
///   httpd does; curl repeats such a request without `Expect`.
struct ExpectationMiddleware: RouterMiddleware {
    typealias Context = TestServerRequestContext

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        switch RequestExpectation(fieldValues: request.headers[values: .expect]) {
        case .none:
            return try await next(request, context)
        case .continueBeforeBody:
            var request = request
            request.body = RequestBody(asyncSequence: ContinueOnFirstRead(base: request.body, channel: context.channel))
            return try await next(request, context)
        case .unsupported:
            throw HTTPError(
                .expectationFailed,
                headers: [.connection: "close"],
                message: "This server meets no expectation but 100-continue; send the request without that Expect header."
            )
        }
    }
}

/// A request body that, when first read, triggers ``ContinueResponseHandler/BodyWanted`` on the
/// connection so the client waiting for `100 Continue` gets it and sends the body.
private struct ContinueOnFirstRead: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let base: RequestBody
    let channel: any Channel

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let channel: any Channel
        var asked = false

        mutating func next() async throws -> ByteBuffer? {
            if !asked {
                asked = true
                channel.triggerUserOutboundEvent(ContinueResponseHandler.BodyWanted(), promise: nil)
            }
            return try await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), channel: channel)
    }
}
