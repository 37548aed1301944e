import Foundation
import Logging
import NIOCore

/// What running a request produced, before response serialization.
struct ExecutionOutcome: Sendable {
    var request: Request
    var head: ResponseHead?
    var data: [UInt8] = []
    var metrics: TransportMetrics?
    var redirectChain: [URL] = []
    /// Where a download's file ended up.
    var fileURL: URL?
    var error: LupineError?
}

/// Runs one task's request on the transport: follows redirects, answers authentication
/// challenges, asks the response hook, and reads the body chunk by chunk through the task's
/// suspension gate, reporting progress.
struct RequestExecutor: Sendable {
    /// How many times one request may be re-sent with credentials before the 401 is delivered.
    static let maximumAuthenticationAttempts = 5

    let transport: any Transport
    let hooks: SessionHooks
    let maximumRedirects: Int
    let credential: Credential?
    /// The session's trust hook; `nil` for the transport's own.
    let serverTrustEvaluator: ServerTrustEvaluator?
    let logger: Logger

    /// Runs `task`'s request and reads the response body into memory.
    func run(_ task: SessionTask) async -> ExecutionOutcome {
        var outcome = ExecutionOutcome(request: task.originalRequest)
        do {
            outcome.data = try await self.run(task, startingWith: task.originalRequest, into: &outcome) { body, head in
                let length = head.headers.first(name: "Content-Length").flatMap(Int.init)
                task.delegate.willReceiveBody(length: length)
                return try await self.readBody(body, expectedLength: length, of: task)
            }
        } catch {
            let lupineError = Self.lupineError(for: error)
            outcome.error = lupineError
            self.logger.debug(
                "Request failed",
                metadata: ["task": "\(task.taskIdentifier)", "error": "\(lupineError.description)"]
            )
        }
        return outcome
    }

    /// Sends `request` for `task`, following redirects and answering challenges, then hands the
    /// final response's body to `consumeBody` and returns what it made of it.
    func run<Consumed>(
        _ task: SessionTask,
        startingWith request: Request,
        into outcome: inout ExecutionOutcome,
        consumeBody: (ResponseBody, ResponseHead) async throws -> Consumed
    ) async throws -> Consumed {
        var request = request
        // Filled on the first redirect only: most requests never need it.
        var visited: Set<String> = []
        var authenticationFailures = 0
        while true {
            try task.checkCancellation()
            request = request.movingUserInfoCredentialToHeader()
            outcome.request = request
            // Headers set with the non-throwing `setValue`, or by a hook, are checked here, so
            // none reaches the transport (and NIO's preconditions) unchecked.
            try HeaderFieldValidation.validate(request.headers)
            task.willSend(request)
            task.delegate.willSendBody(length: request.body.knownLength)
            self.logger.debug("Sending request", metadata: RequestLogMetadata.request(request, task: task))
            var transportRequest = TransportRequest(request, progress: task.delegate, cancellation: task.transportCancellation)
            transportRequest.serverTrustEvaluator = self.serverTrustEvaluator
            let response = try await self.transport.execute(transportRequest)
            let head = ResponseHead(status: response.status, headers: response.headers, url: request.url)
            self.logger.debug("Received response", metadata: RequestLogMetadata.response(head, task: task))
            outcome.head = head
            outcome.metrics = response.metrics
            task.didReceive(head)

            if let next = try self.redirect(task, from: request, head: head) {
                guard outcome.redirectChain.count < self.maximumRedirects else {
                    throw LupineError.redirectFailed(.tooManyRedirects(limit: self.maximumRedirects))
                }
                if visited.isEmpty {
                    visited.insert(Self.visitKey(request))
                }
                guard visited.insert(Self.visitKey(next)).inserted else {
                    throw LupineError.redirectFailed(.loop(next.url))
                }
                try await Self.discard(response.body)
                outcome.redirectChain.append(request.url)
                request = next
                continue
            }
            if let credential = self.credential(for: task, head: head, failures: authenticationFailures) {
                try await Self.discard(response.body)
                authenticationFailures += 1
                request.setValue(credential.basicAuthorizationHeader, forHTTPHeaderField: "Authorization")
                continue
            }
            if self.hooks.didReceiveResponse?(task, head) == .cancel {
                throw LupineError.cancelled
            }
            let consumed = try await consumeBody(response.body, head)
            outcome.metrics = response.metrics
            return consumed
        }
    }

    /// The next request when `head` is a redirect the session (and its hook) follows.
    private func redirect(_ task: SessionTask, from request: Request, head: ResponseHead) throws(LupineError) -> Request? {
        guard let next = try RedirectPolicy.redirectedRequest(for: request, head: head) else { return nil }
        guard let hook = self.hooks.willPerformRedirection else { return next }
        return hook(task, head, next)
    }

    /// The credential to retry with when `head` is a Basic challenge that should be answered.
    private func credential(for task: SessionTask, head: ResponseHead, failures: Int) -> Credential? {
        guard head.statusCode == 401, failures < Self.maximumAuthenticationAttempts,
            let header = head.headers.first(name: "WWW-Authenticate"),
            let challenge = AuthenticationChallenge(
                wwwAuthenticate: header,
                host: head.url.host ?? "",
                port: head.url.port ?? (head.url.scheme == "https" ? 443 : 80),
                previousFailureCount: failures
            ),
            challenge.scheme.lowercased() == "basic"
        else { return nil }
        switch self.hooks.didReceiveChallenge?(task, challenge) ?? .performDefaultHandling {
        case .useCredential(let credential):
            return credential
        case .performDefaultHandling:
            // The session's credential goes only to the origin the task was made for.
            let sameOrigin = RedirectPolicy.sameOrigin(head.url, task.originalRequest.url)
            return failures == 0 && sameOrigin ? self.credential : nil
        case .cancelAuthenticationChallenge:
            task.cancel()
            return nil
        case .rejectProtectionSpace:
            return nil
        }
    }

    func readBody(_ body: ResponseBody, expectedLength: Int?, of task: SessionTask) async throws -> [UInt8] {
        var data: [UInt8] = []
        // One allocation for a body of announced size (capped: the header is the server's word).
        data.reserveCapacity(min(max(expectedLength ?? 0, 0), 16 * 1024 * 1024))
        try await self.forEachChunk(of: body, for: task) { chunk in
            data.append(contentsOf: chunk.readableBytesView)
        }
        return data
    }

    /// Hands each body chunk to `handle`, waiting while the task is suspended (so the transport
    /// stops reading), stopping when it is cancelled, and reporting progress and data.
    func forEachChunk(of body: ResponseBody, for task: SessionTask, _ handle: (ByteBuffer) async throws -> Void) async throws {
        var chunks = body.makeAsyncIterator()
        while true {
            await task.gate.pass()
            try task.checkCancellation()
            guard let chunk = try await chunks.next() else { return }
            try await handle(chunk)
            task.delegate.didReceiveBody(bytes: chunk.readableBytes)
            self.hooks.didReceiveData?(task, chunk)
        }
    }

    static func discard(_ body: ResponseBody) async throws {
        for try await _ in body {}
    }

    /// What identifies a hop for loop detection: method and URL, without the fragment the server never sees.
    private static func visitKey(_ request: Request) -> String {
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
        components?.fragment = nil
        return "\(request.method.rawValue) \(components?.string ?? request.url.absoluteString)"
    }

    static func lupineError(for error: any Error) -> LupineError {
        switch error {
        case let error as LupineError: return error
        case TransportError.cancelled, is CancellationError: return .cancelled
        // A failure of Lupine's own body producer (a multipart part) is reported as itself.
        case TransportError.requestBodyFailed(let underlying as LupineError): return underlying
        case TransportError.serverTrustRejected(let host, let reason, let chain):
            return .serverTrustEvaluationFailed(host: host, reason: reason, certificateChain: chain)
        case TransportError.invalidHeader(let name, let reason):
            return .invalidHeader(name: name, reason: reason)
        case let error as TransportError: return .transport(error)
        default: return .transport(.requestBodyFailed(underlying: error))
        }
    }
}
