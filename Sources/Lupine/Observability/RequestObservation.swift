import NIOConcurrencyHelpers
import Tracing

/// What a session with metrics or a tracer observes of one task, made with the task (only then:
/// a session with neither makes none, and its tasks pay one `nil` check per attempt).
///
/// The executor runs the task inside ``observe(_:transport:_:)``, which counts it, makes its
/// client span the current context (so an interceptor's own spans, and requests, are its
/// children) and describes the outcome; ``propagatingContext(into:)`` writes the span's context
/// into each attempt's header fields; and as one of the task's event monitors it hears the
/// retries, redirects and cache answers between.
final class RequestObservation: EventMonitor {
    private struct State {
        var span: (any Span)?
        /// A ``ResponseCache`` (not an ``HTTPCache``, whose status the outcome carries) answered.
        var answeredByCache = false
    }

    private let session: SessionObservability
    private let state = NIOLockedValueBox(State())

    init(session: SessionObservability) {
        self.session = session
    }

    /// Runs `body`, the task's whole execution, observed.
    func observe(_ task: SessionTask, transport: any Transport, _ body: () async -> ExecutionOutcome) async -> ExecutionOutcome {
        let request = task.originalRequest
        let method = RequestSpan.methodName(request.method)
        let started = ContinuousClock.now
        self.session.metrics?.recordStart(method: method)
        let outcome: ExecutionOutcome
        if let tracer = self.session.tracer {
            let span = tracer.startSpan(RequestSpan.name(method: method), context: InstrumentationContext.current ?? .topLevel, ofKind: .client)
            RequestSpan.describe(request, method: method, on: span)
            self.state.withLockedValue { $0.span = span }
            outcome = await InstrumentationContext.$current.withValue(span.context) { await body() }
            RequestSpan.finish(span, with: outcome)
        } else {
            outcome = await body()
        }
        if let metrics = self.session.metrics {
            let cacheStatus = outcome.cacheStatus.map(\.rawValue) ?? (self.state.withLockedValue { $0.answeredByCache } ? CacheStatus.hit.rawValue : nil)
            metrics.recordCompletion(of: outcome, method: method, duration: .now - started, cacheStatus: cacheStatus)
            self.session.recordPools(of: transport)
        }
        return outcome
    }

    /// `request` with the task span's context written into its header fields by the tracer's
    /// injector (W3C's `traceparent` for an OpenTelemetry tracer); as it was without a tracer.
    func propagatingContext(into request: Request) -> Request {
        guard let tracer = self.session.tracer, let span = self.state.withLockedValue({ $0.span }) else { return request }
        var request = request
        tracer.inject(span.context, into: &request.headers, using: HTTPHeadersInjector())
        return request
    }

    func task(_ task: SessionTask, didDecide decision: RetryDecision, for context: RetryContext) {
        let delay: Duration
        switch decision {
        case .retry: delay = .zero
        case .retryAfter(let asked): delay = min(max(asked, .zero), RetryDecision.maximumDelay)
        case .doNotRetry, .doNotRetryWithError: return
        }
        self.session.metrics?.recordRetry(method: RequestSpan.methodName(task.originalRequest.method))
        if let span = self.state.withLockedValue({ $0.span }) {
            RequestSpan.retry(after: context, delay: delay, on: span)
        }
    }

    func task(_ task: SessionTask, willRedirectTo request: Request, for response: ResponseHead) {
        if let span = self.state.withLockedValue({ $0.span }) {
            RequestSpan.redirect(to: request, from: response, on: span)
        }
    }

    func task(_ task: SessionTask, didReceiveCachedResponse response: CachedResponse) {
        self.state.withLockedValue { $0.answeredByCache = true }
    }
}
