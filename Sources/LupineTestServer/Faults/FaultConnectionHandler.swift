import NIOCore

/// Answers fault-listener requests on one connection, one at a time, with the bytes their
/// ``FaultEndpoint`` calls for.
///
/// A connection that has not sent a complete request head within the head deadline, counted from
/// its accept and from the moment each response has been handed to the socket, is closed; stalls and drips once a request is in
/// are faults on purpose and run as long as they need.
final class FaultConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = FaultRequest
    typealias OutboundOut = ByteBuffer

    private enum State {
        /// Waiting for the next request.
        case idle
        /// Dripping a body; requests that arrive meanwhile wait in `queued`.
        case dripping(remaining: Int, interval: TimeAmount, task: Scheduled<Void>?)
        /// Answered a request with a stall or a close; later requests are read and dropped.
        case silenced
    }

    private let connectionID: Int
    private var state = State.idle
    private var queued: [FaultRequest] = []
    /// The next chunk of an endless body, while one is being sent.
    private var pouring: Scheduled<Void>?
    /// The bytes of an endless body sent before the channel stopped being writable: pouring goes
    /// on from there once it is writable again (no timer wakes for a client that stopped reading).
    private var pourPausedAt: Int?
    /// Set once `/keep-alive-once` has been answered on this connection.
    private var servedKeepAliveOnce = false
    private var headDeadline: ConnectionDeadline

    init(connectionID: Int, headTimeout: TimeAmount) {
        self.connectionID = connectionID
        self.headDeadline = ConnectionDeadline(timeout: headTimeout)
    }

    func channelActive(context: ChannelHandlerContext) {
        headDeadline.start(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let request = unwrapInboundIn(data)
        switch state {
        case .idle:
            headDeadline.cancel()
            respond(to: request, context: context)
            waitForNextHead(context: context)
        case .dripping:
            queued.append(request)
        case .silenced:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        headDeadline.cancel()
        if case .dripping(_, _, let task) = state {
            task?.cancel()
        }
        pouring?.cancel()
        state = .silenced
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func respond(to request: FaultRequest, context: ChannelHandlerContext) {
        if servedKeepAliveOnce {
            closeSilently(context)
            return
        }
        let id = connectionID
        switch FaultEndpoint(request) {
        case .closeMidBody:
            var response = RawResponse.head(headers: [("Content-Length", "1000")], connectionID: id)
            response.writeImmutableBuffer(RawResponse.filler(400))
            writeThenClose(response, context: context)
        case .stallAfterHeaders:
            state = .silenced
            context.writeAndFlush(wrapOutboundOut(RawResponse.head(headers: [("Content-Length", "100")], connectionID: id)), promise: nil)
        case .stallBeforeHeaders:
            state = .silenced
        case .stopReading:
            state = .silenced
            do {
                try context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
            } catch {
                context.close(promise: nil)
            }
        case .malformedStatusLine:
            let response = RawResponse.head("HTTP/1.1 abc NOT-A-STATUS", headers: [("Content-Length", "0")], connectionID: id)
            writeThenClose(response, context: context)
        case .oversizedHeaders:
            let headers = RawResponse.oversizedHeaderLines + [("Content-Length", "0")]
            writeThenClose(RawResponse.head(headers: headers, connectionID: id), context: context)
        case .contentLengthTooLong:
            var response = RawResponse.head(headers: [("Content-Length", "100")], connectionID: id)
            response.writeImmutableBuffer(RawResponse.filler(60))
            writeThenClose(response, context: context)
        case .drip(let bytes, let interval):
            let head = RawResponse.head(
                headers: [("Content-Type", "application/octet-stream"), ("Content-Length", String(bytes))],
                connectionID: id
            )
            context.writeAndFlush(wrapOutboundOut(head), promise: nil)
            state = .dripping(remaining: bytes, interval: interval, task: nil)
            drip(context: context)
        case .interrupt(let bytes, let at, let rangeStart, let stalls, let sendsEntityTag):
            let headers =
                [("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes")]
                + (sendsEntityTag ? [("ETag", FaultEndpoint.interruptEntityTag(bytes: bytes))] : [])
            if let rangeStart {
                var response = RawResponse.head(
                    "HTTP/1.1 206 Partial Content",
                    headers: headers + [("Content-Range", "bytes \(rangeStart)-\(bytes - 1)/\(bytes)"), ("Content-Length", String(bytes - rangeStart))],
                    connectionID: id
                )
                DeterministicBytes.forEachRun(in: rangeStart..<bytes) { response.writeBytes($0) }
                context.writeAndFlush(wrapOutboundOut(response), promise: nil)
            } else {
                var response = RawResponse.head(headers: headers + [("Content-Length", String(bytes))], connectionID: id)
                DeterministicBytes.forEachRun(in: 0..<at) { response.writeBytes($0) }
                if stalls {
                    state = .silenced
                    context.writeAndFlush(wrapOutboundOut(response), promise: nil)
                } else {
                    writeThenClose(response, context: context)
                }
            }
        case .endlessRedirect(let location):
            state = .silenced
            let head = RawResponse.head("HTTP/1.1 302 Found", headers: [("Location", location), ("Transfer-Encoding", "chunked")], connectionID: id)
            context.writeAndFlush(wrapOutboundOut(head), promise: nil)
            pour(context: context, sent: 0)
        case .bodiedRedirect(let location, let bytes, let chunked):
            let response = RawResponse.filled("HTTP/1.1 302 Found", headers: [("Location", location)], bytes: bytes, chunked: chunked, connectionID: id)
            context.writeAndFlush(wrapOutboundOut(response), promise: nil)
        case .bodiedChallenge(let bytes, let chunked):
            let challenge = [("WWW-Authenticate", #"Basic realm="faults""#)]
            let response = RawResponse.filled("HTTP/1.1 401 Unauthorized", headers: challenge, bytes: bytes, chunked: chunked, connectionID: id)
            context.writeAndFlush(wrapOutboundOut(response), promise: nil)
        case .cutRedirect(let location):
            var response = RawResponse.head("HTTP/1.1 302 Found", headers: [("Location", location), ("Content-Length", "1000")], connectionID: id)
            response.writeImmutableBuffer(RawResponse.filler(400))
            writeThenClose(response, context: context)
        case .keepAliveOnce:
            servedKeepAliveOnce = true
            let response = RawResponse.complete(contentType: "application/json", body: #"{"request":1}"#, connectionID: id)
            context.writeAndFlush(wrapOutboundOut(response), promise: nil)
        case .http10:
            var response = RawResponse.head("HTTP/1.0 200 OK", headers: [("Content-Type", "text/plain")], connectionID: id)
            response.writeString("This HTTP/1.0 body ends when the connection closes.\n")
            writeThenClose(response, context: context)
        case .connectionClose:
            let response = RawResponse.complete(
                extraHeaders: [("Connection", "close")],
                body: "This response closes the connection.\n",
                connectionID: id
            )
            writeThenClose(response, context: context)
        case .badRequest(let reason):
            let response = RawResponse.complete("HTTP/1.1 400 Bad Request", body: reason + "\n", connectionID: id)
            context.writeAndFlush(wrapOutboundOut(response), promise: nil)
        case .notFound:
            let response = RawResponse.complete("HTTP/1.1 404 Not Found", body: "No such fault endpoint.\n", connectionID: id)
            context.writeAndFlush(wrapOutboundOut(response), promise: nil)
        }
    }

    /// Sends the next dripped byte, or finishes the drip and moves on to queued requests.
    private func drip(context: ChannelHandlerContext) {
        guard case .dripping(let remaining, let interval, _) = state else { return }
        guard remaining > 0 else {
            state = .idle
            respondToQueued(context: context)
            waitForNextHead(context: context)
            return
        }
        let task = context.eventLoop.assumeIsolated().scheduleTask(in: interval) {
            guard case .dripping = self.state else { return }
            self.state = .dripping(remaining: remaining - 1, interval: interval, task: nil)
            context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: "*")), promise: nil)
            self.drip(context: context)
        }
        state = .dripping(remaining: remaining, interval: interval, task: task)
    }

    /// Sends the next chunk of an endless body every millisecond while the client takes them,
    /// until the connection closes; once ``FaultEndpoint/maximumEndlessBytes`` are out, the server
    /// closes it (a client reading to the end must not wait for ever). While the channel is not
    /// writable, nothing is scheduled: ``channelWritabilityChanged(context:)`` resumes the pour.
    private func pour(context: ChannelHandlerContext, sent: Int) {
        pouring = nil
        guard context.channel.isActive else { return }
        guard sent < FaultEndpoint.maximumEndlessBytes else {
            context.close(promise: nil)
            return
        }
        guard context.channel.isWritable else {
            pourPausedAt = sent
            return
        }
        let chunk = RawResponse.chunk(16 * 1024)
        let total = sent + chunk.readableBytes
        context.writeAndFlush(wrapOutboundOut(chunk), promise: nil)
        pouring = context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(1)) {
            self.pour(context: context, sent: total)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let sent = pourPausedAt {
            pourPausedAt = nil
            pour(context: context, sent: sent)
        }
        context.fireChannelWritabilityChanged()
    }

    private func respondToQueued(context: ChannelHandlerContext) {
        while case .idle = state, !queued.isEmpty {
            respond(to: queued.removeFirst(), context: context)
        }
    }

    /// Starts the head deadline when the connection is free for its next request, once what was
    /// written before has left, so that a slow reader of a large response is not cut.
    private func waitForNextHead(context: ChannelHandlerContext) {
        guard case .idle = state else { return }
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenSuccess {
            if case .idle = self.state {
                self.headDeadline.start(context)
            }
        }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer()), promise: written)
    }

    private func writeThenClose(_ response: ByteBuffer, context: ChannelHandlerContext) {
        state = .silenced
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(response)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func closeSilently(_ context: ChannelHandlerContext) {
        state = .silenced
        context.close(promise: nil)
    }
}
