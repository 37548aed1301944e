import NIOCore
import NIOHTTP1

/// Writes the interim `100 Continue` that a client sending `Expect: 100-continue` waits for
/// before it sends its body (RFC 9110 §10.1.1), when the request's handler starts reading that
/// body.
///
/// It sits between NIO's HTTP/1 codec and the conversion to Swift HTTP types, where the request's
/// HTTP version is still known. The handler of the request announces that it is about to read
/// the body with a ``BodyWanted`` outbound event (see ``ExpectationMiddleware``); only then is the
/// 100 written, so a request the server answers from its headers alone (413 for a declared
/// `Content-Length` over the limit, 503 when the body budget is spent, 404, ...) gets its final
/// status and no 100. The 100 is written at most once per request, and never:
/// - to an HTTP/1.0 request (RFC 9110 §15.2: no 1xx to an HTTP/1.0 client);
/// - for a request without a body, or whose body already started arriving;
/// - once the request's final response has started.
final class ContinueResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The outbound event the handler of the current request triggers on the channel before it
    /// first reads the request body.
    struct BodyWanted: Sendable {}

    /// Request heads read on this connection, numbering the requests from 1.
    private var requestsRead = 0
    /// Final (non-1xx) response heads written: the request being answered now is the next one.
    private var responsesStarted = 0
    /// The number of the request still owed a 100, if any. Only the latest request can be: none
    /// can follow it on the connection until its body has been sent.
    private var continueOwedTo: Int?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestsRead &+= 1
            let expectsContinue =
                head.version >= .http1_1
                && RequestExpectation(fieldValues: head.headers["expect"]) == .continueBeforeBody
            continueOwedTo = expectsContinue ? requestsRead : nil
        case .body, .end:
            // The client is already sending (or has no body): a 100 would tell it nothing.
            continueOwedTo = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head(let head) = unwrapOutboundIn(data), head.status.isFinal {
            responsesStarted &+= 1
            if continueOwedTo == responsesStarted {
                continueOwedTo = nil
            }
        }
        context.write(data, promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is BodyWanted else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if let owed = continueOwedTo, owed == responsesStarted &+ 1 {
            continueOwedTo = nil
            let interim = HTTPResponseHead(version: .http1_1, status: .continue)
            context.writeAndFlush(wrapOutboundOut(.head(interim)), promise: nil)
        }
        promise?.succeed()
    }
}

extension HTTPVersion {
    fileprivate static func >= (lhs: HTTPVersion, rhs: HTTPVersion) -> Bool {
        (lhs.major, lhs.minor) >= (rhs.major, rhs.minor)
    }
}

extension HTTPResponseStatus {
    /// Whether a head with this status is the final response to a request rather than an
    /// interim 1xx (101 Switching Protocols ends the request's HTTP exchange, so it counts as final).
    fileprivate var isFinal: Bool {
        !(100..<200).contains(code) || code == 101
    }
}
