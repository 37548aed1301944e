import Foundation
import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Closes main-listener connections that hold the server without making progress.
///
/// - A connection must send a complete request head within the deadline, counted from its accept
///   (a TLS handshake included) and, on a keep-alive connection, from the moment the previous
///   request has been read and its response handed to the socket (a slow reader of a large
///   response is not cut). Bytes that do not complete a head, as a
///   slowloris sends them, do not restart it. The time a response takes is not counted.
/// - While a request body is being read, each wait for more of it that the server starts (a read
///   asked for from the handlers above) must end within the deadline: a peer that stops sending
///   mid-body cannot hold the connection, and the body bytes reserved for it, for ever. While the
///   handler of the request is not reading, nothing is asked for and nothing is counted. A
///   request carrying `Expect: 100-continue` waits for the server first: its body wait counts
///   only from the moment its handler asks for the body (and the 100 goes out) or answers it.
/// - After a response carrying `Connection: close`, the connection's output is closed at once and
///   the connection itself when the deadline passes, so a peer that keeps sending cannot hold it.
final class HTTPConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// No request in progress: the deadline runs.
        case waitingForHead
        /// A request is being read, or responses are owed; the deadline runs only while a read
        /// asked for during a request body is outstanding.
        case serving(readingRequest: Bool, responsesOwed: Int)
        /// A `Connection: close` response was written and the output closed: the deadline runs
        /// and nothing restarts it.
        case closing
    }

    private var state = State.waitingForHead
    private var deadline: ConnectionDeadline
    /// Set by a response head carrying `Connection: close`, acted on at that response's end.
    private var closesAfterResponse = false
    /// Set while the request being read waits for its `100 Continue`, which the server owes: no
    /// body wait is counted until the handler asks for the body or answers the request.
    private var continueOwed = false

    init(timeout: TimeAmount) {
        self.deadline = ConnectionDeadline(timeout: timeout)
    }

    func channelActive(context: ChannelHandlerContext) {
        deadline.start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline.cancel()
        context.fireChannelInactive()
    }

    func read(context: ChannelHandlerContext) {
        if case .serving(readingRequest: true, _) = state, !continueOwed {
            deadline.start(context)
        }
        context.read()
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if event is ContinueResponseHandler.BodyWanted {
            continueSettled(context: context)
        }
        context.triggerUserOutboundEvent(event, promise: promise)
    }

    /// Ends the wait for a `100 Continue`: the body the client sends from now on is waited for
    /// within the deadline, as any other (a read may already be outstanding).
    private func continueSettled(context: ChannelHandlerContext) {
        guard continueOwed else { return }
        continueOwed = false
        if case .serving(readingRequest: true, _) = state {
            deadline.start(context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .serving = state {
            deadline.cancel()
        }
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            continueOwed = RequestExpectation(fieldValues: head.headerFields[values: .expect]) == .continueBeforeBody
        case .body, .end:
            continueOwed = false
        }
        switch (part, state) {
        case (.head, .waitingForHead):
            deadline.cancel()
            state = .serving(readingRequest: true, responsesOwed: 1)
        case (.head, .serving(_, let owed)):
            state = .serving(readingRequest: true, responsesOwed: owed + 1)
        case (.end, .serving(_, let owed)):
            enterServing(readingRequest: false, responsesOwed: owed, context: context)
        case (.body, _), (.head, .closing), (.end, .waitingForHead), (.end, .closing):
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if head.status.kind != .informational {
                closesAfterResponse = closesAfterResponse || Self.closesConnection(head.headerFields)
                if case .serving(_, responsesOwed: 1) = state {
                    // The response to the latest request read, the one a 100 may be owed to.
                    continueSettled(context: context)
                }
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            let written = promise ?? context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { _ in
                self.responseEnded(context: context)
            }
            context.write(data, promise: written)
        }
    }

    private func responseEnded(context: ChannelHandlerContext) {
        if closesAfterResponse {
            state = .closing
            context.flush()
            let closed = context.eventLoop.makePromise(of: Void.self)
            closed.futureResult.assumeIsolated().whenFailure { _ in
                // The channel cannot half-close: close it whole.
                context.close(promise: nil)
            }
            context.close(mode: .output, promise: closed)
            deadline.start(context)
        } else if case .serving(let reading, let owed) = state {
            enterServing(readingRequest: reading, responsesOwed: max(owed - 1, 0), context: context)
        }
    }

    /// Moves to `.serving`, or to `.waitingForHead` with the deadline started when nothing is left
    /// to read or write.
    private func enterServing(readingRequest: Bool, responsesOwed: Int, context: ChannelHandlerContext) {
        if readingRequest || responsesOwed > 0 {
            state = .serving(readingRequest: readingRequest, responsesOwed: responsesOwed)
        } else {
            state = .waitingForHead
            deadline.start(context)
        }
    }

    private static func closesConnection(_ fields: HTTPFields) -> Bool {
        fields[values: .connection].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
        }
    }
}
