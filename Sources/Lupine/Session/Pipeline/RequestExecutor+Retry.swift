/// What became of an attempt at the retry point.
enum AttemptResult {
    /// A final response came, and no retrier sends the attempt again.
    case answered(TransportResponse, ResponseHead)
    /// A retrier sends the attempt again; its wait is over.
    case retrying
    /// The attempt failed, and no retrier sends it again.
    case failed(LupineError)
}

/// The retry point: an attempt's exchange, and what the retriers make of its failure or of a
/// final status of 400 or above.
extension RequestExecutor {
    /// Sends `request` (after redirects and challenges, its final response) and puts a failure,
    /// or a final status of 400 or above, to the retriers.
    nonisolated(nonsending) func send(
        _ request: Request,
        of task: SessionTask,
        outcome: inout ExecutionOutcome,
        started: ContinuousClock.Instant?
    ) async throws -> AttemptResult {
        self.features.tell { $0.task(task, didStartAttempt: outcome.retryCount, with: request) }
        let response: TransportResponse
        let head: ResponseHead
        do {
            (response, head) = try await self.exchange(task, startingWith: request, outcome: &outcome)
        } catch {
            let failure = LupineError(translating: error, from: .transport)
            guard let delay = try await self.retryDelay(after: failure, sending: request, response: nil, of: task, outcome: outcome, started: started) else {
                return .failed(failure)
            }
            try await self.prepareRetry(after: delay, of: task, outcome: &outcome, discarding: nil)
            return .retrying
        }
        if head.statusCode >= 400,
            let delay = try await self.retryDelay(after: Self.statusFailure(head), sending: request, response: head, of: task, outcome: outcome, started: started)
        {
            try await self.prepareRetry(after: delay, of: task, outcome: &outcome, discarding: response)
            return .retrying
        }
        return .answered(response, head)
    }

    /// What a retrier is told about a final response whose status is 400 or above.
    private static func statusFailure(_ head: ResponseHead) -> LupineError {
        .responseValidationFailed(.unacceptableStatusCode(code: head.statusCode, head: head, body: [], underlying: nil))
    }

    /// How long to wait before sending the failed attempt again, or `nil` to deliver the failure.
    ///
    /// The retriers are asked only when there are some, the failure is not a cancellation, and
    /// the body of `sent` (the attempt's first request, which a retry sends again) and of the hop
    /// that failed can be sent again. A retrier that throws, or that decides
    /// ``RetryDecision/doNotRetryWithError(_:)``, fails the task with its error: a
    /// ``LupineError`` as itself (an interceptor's `authenticationFailed`, a cancel), anything
    /// else as ``LupineError/requestRetryFailed(underlying:original:)``.
    nonisolated(nonsending) func retryDelay(
        after failure: LupineError,
        sending sent: Request,
        response: ResponseHead?,
        of task: SessionTask,
        outcome: ExecutionOutcome,
        started: ContinuousClock.Instant?
    ) async throws(LupineError) -> Duration? {
        guard let retrier = self.features.interceptor, let started else { return nil }
        if case .cancelled = failure { return nil }
        guard sent.body.isReplayable, outcome.request.body.isReplayable, !task.isCancelling else { return nil }
        let context = RetryContext(
            task: task,
            request: outcome.request,
            response: response,
            error: failure,
            retryCount: outcome.retryCount,
            elapsed: .now - started
        )
        let decision: RetryDecision
        do {
            decision = try await Self.cancellable(by: task) { try await retrier.retry(context) }
        } catch {
            if task.isCancelling { throw .cancelled }
            throw Self.retrierFailure(error, original: failure)
        }
        // A retrier cancelled with the task may answer anything (a refresh's cancellation as its error).
        if task.isCancelling { throw .cancelled }
        self.features.tell { $0.task(task, didDecide: decision, for: context) }
        switch decision {
        case .retry:
            return .zero
        case .retryAfter(let delay):
            return min(max(delay, .zero), RetryDecision.maximumDelay)
        case .doNotRetry:
            return nil
        case .doNotRetryWithError(let error):
            throw Self.retrierFailure(error, original: failure)
        }
    }

    /// What the task fails with when its retrier gives `error` about the attempt that failed with `original`.
    private static func retrierFailure(_ error: any Error, original: LupineError) -> LupineError {
        switch error {
        case let error as LupineError: return error
        case is CancellationError: return .cancelled
        default: return .requestRetryFailed(underlying: error, original: original)
        }
    }

    /// Gets ready to send the attempt again: drains the refused response's body (so its
    /// connection can be reused), keeps the failed request's metrics, and waits `delay`; a
    /// cancel of the task ends the wait at once.
    nonisolated(nonsending) func prepareRetry(
        after delay: Duration,
        of task: SessionTask,
        outcome: inout ExecutionOutcome,
        discarding response: TransportResponse?
    ) async throws {
        if let response {
            await Self.drain(response.body)
            try task.checkCancellation()
            outcome.metrics = response.metrics
        }
        if let metrics = outcome.metrics {
            outcome.earlierMetrics.append(metrics)
        }
        outcome.metrics = nil
        outcome.head = nil
        outcome.retryCount += 1
        if delay > .zero {
            try await Self.cancellable(by: task) { try await Task.sleep(for: delay) }
        }
        // A task suspended during the wait sends nothing until it is resumed.
        await task.gate.pass()
        try task.checkCancellation()
    }

    /// Runs `operation` (a retry delay, a caller's retrier or redirect handler: never on the
    /// path of a request that succeeds at once, since it costs a hop) on a Swift task of its own that a cancel of `task` cancels, whether by ``SessionTask/cancel()``
    /// (which cannot reach the Swift task a task runs inline in) or by its Swift task being
    /// cancelled.
    static nonisolated(nonsending) func cancellable<Value: Sendable>(
        by task: SessionTask,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let child = Task { try await operation() }
        return try await task.cancellation.whileWaiting(onCancel: { child.cancel() }) {
            try await withTaskCancellationHandler {
                try await child.value
            } onCancel: {
                child.cancel()
            }
        }
    }
}

extension Request.Body {
    /// Whether the body can be sent a second time: a stream is produced once, a file that cannot
    /// tell its length (a FIFO, a device) is read once; anything else can.
    var isReplayable: Bool {
        switch self {
        case .none, .bytes: return true
        case .stream: return false
        case .file: return self.knownLength != nil
        case .multipart(let form): return form.isReplayable
        }
    }
}
