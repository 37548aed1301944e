import Foundation

/// The exchange stage: one attempt's requests on the wire, from the first through every redirect
/// and Basic challenge to the final response, with cookies, hooks and logs at each hop.
extension RequestExecutor {
    /// One attempt: sends `request`, follows redirects and answers Basic challenges, and returns
    /// the final response with its body unread. Every discarded hop's metrics go to `outcome`.
    nonisolated(nonsending) func exchange(
        _ task: SessionTask,
        startingWith request: Request,
        outcome: inout ExecutionOutcome
    ) async throws -> (TransportResponse, ResponseHead) {
        var request = request
        // Filled on the first redirect only: most requests never need it.
        var visited: Set<String> = []
        var challenges = BasicChallengeResponder(credential: self.credential, hook: self.hooks.didReceiveChallenge)
        outcome.redirectChain = []
        while true {
            try task.checkCancellation()
            request = request.movingUserInfoCredentialToHeader()
            // The jar's cookies go on the request sent, not on `request`: the next hop, perhaps
            // to another host, gets its own.
            let sent = self.features.cookieStorage.map { request.addingCookies(from: $0) } ?? request
            outcome.request = sent
            // Headers set with the non-throwing `setValue`, by a hook or an adapter, are checked
            // here, so none reaches the transport (and NIO's preconditions) unchecked.
            try HeaderFieldValidation.validate(sent.headers)
            task.willSend(sent)
            self.features.tell { $0.task(task, willSend: sent) }
            task.delegate.willSendBody(length: sent.body.knownLength)
            self.logger.debug("Sending request", metadata: RequestLogMetadata.request(sent, task: task))
            var transportRequest = TransportRequest(sent, progress: task.delegate, cancellation: task.cancellation.transport)
            transportRequest.serverTrustEvaluator = self.serverTrustEvaluator
            transportRequest.clientIdentityProvider = self.clientIdentityProvider
            let response = try await self.transport.execute(transportRequest)
            let head = ResponseHead(status: response.status, headers: response.headers, url: request.url, version: response.version)
            self.logger.debug("Received response", metadata: RequestLogMetadata.response(head, task: task))
            if let jar = self.features.cookieStorage, head.headers.contains(name: "Set-Cookie"), let cookieURL = request.cookieURL {
                jar.storeCookies(fromSetCookieValues: head.headers["Set-Cookie"], for: cookieURL)
            }
            outcome.head = head
            outcome.metrics = response.metrics
            task.didReceive(head)

            if let next = try await self.redirect(task, from: request, head: head) {
                guard outcome.redirectChain.count < self.maximumRedirects else {
                    throw LupineError.redirectFailed(.tooManyRedirects(limit: self.maximumRedirects))
                }
                if visited.isEmpty {
                    visited.insert(Self.visitKey(request))
                }
                guard visited.insert(Self.visitKey(next)).inserted else {
                    throw LupineError.redirectFailed(.loop(next.url))
                }
                self.features.tell { $0.task(task, willRedirectTo: next, for: head) }
                await Self.drain(response.body)
                outcome.earlierMetrics.append(response.metrics)
                outcome.metrics = nil
                outcome.redirectChain.append(request.url)
                request = next
                continue
            }
            // A body produced once cannot be sent with the answer: the challenge is delivered.
            // (The status first: telling a file body's replayability costs a `stat`.)
            if head.statusCode == 401, request.body.isReplayable, let answer = challenges.answer(head, task: task, monitors: self.features) {
                await Self.drain(response.body)
                outcome.earlierMetrics.append(response.metrics)
                outcome.metrics = nil
                request.setValue(answer.basicAuthorizationHeader, forHTTPHeaderField: "Authorization")
                continue
            }
            return (response, head)
        }
    }

    /// The next request when `head` is a redirect the task's ``RedirectHandler`` follows.
    private nonisolated(nonsending) func redirect(_ task: SessionTask, from request: Request, head: ResponseHead) async throws(LupineError) -> Request? {
        guard let next = try RedirectPolicy.redirectedRequest(for: request, head: head) else { return nil }
        let followed: Request?
        if let handler = self.features.redirectHandler {
            // Only a cancel can end the wait early; the loop then stops at its next check.
            followed = (try? await Self.cancellable(by: task) { await handler.task(task, willBeRedirectedTo: next, for: head) }) ?? nil
        } else {
            followed = next
        }
        guard let followed else { return nil }
        // The body just sent was produced once (a stream, a FIFO): sending the same body
        // again would send nothing, so the redirect fails rather than lose it (curl: "rewind").
        if !request.body.isReplayable, !followed.body.isReplayable {
            throw .redirectFailed(.bodyNotReplayable(followed.url))
        }
        return followed
    }

    /// What identifies a hop for loop detection: method and URL, without the fragment the server never sees.
    private static func visitKey(_ request: Request) -> String {
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
        components?.fragment = nil
        return "\(request.method.rawValue) \(components?.string ?? request.url.absoluteString)"
    }
}
