import Foundation

/// Sends a failed request again when the failure is worth another try: a lost, refused or timed-out
/// connection, or a status that says "try later", for methods that are safe to repeat.
///
/// The defaults are Alamofire's: at most ``defaultRetryLimit`` (2) retries, waiting
/// ``exponentialBackoffScale`` × ``exponentialBackoffBase`` ^ retry count (0.5 s, 1 s, ...), for
/// DELETE, GET, HEAD, OPTIONS, PUT and TRACE, on statuses 408, 500, 502, 503 and 504. Beyond them:
///
/// - **`Retry-After`.** On a status in ``retryAfterStatusCodes`` (429 and 503) the server's
///   `Retry-After`, in seconds or as an HTTP-date, replaces the backoff, without jitter; a date in
///   the past means now, a wait above ``maximumDelay`` (a number of seconds too large to read
///   too) is cut to it, and an absurd value (`-1`, `soon`, `1.5`) is ignored. A 429 is retried
///   only when its `Retry-After` is usable (it is not in ``retryableHTTPStatusCodes``); a 503 with
///   an absurd one falls back to the backoff. A wait that would start the retry past
///   ``maximumTotalTime`` means no retry.
/// - **Full jitter.** With ``jitter`` on (the default) the backoff is a uniformly random wait
///   between zero and the computed one, so clients that failed together do not retry together.
/// - **A time budget.** No retry is made that would start more than ``maximumTotalTime`` (120 s)
///   after the task's first attempt started: a storm of 503s ends there even with a high limit.
///
/// Never retried: a method not in ``retryableHTTPMethods`` (POST and PATCH by default), checked
/// for both the task's original request and the one that failed; a cancellation; a failure to
/// resolve the host; a TLS failure; a request whose body cannot be sent twice (the session does not
/// ask then). Out-of-range settings are clamped: a negative limit counts as 0, a base below 1 as
/// 1, a negative scale, delay or budget as zero, a maximum delay above
/// ``RetryDecision/maximumDelay`` (one hour, the longest wait a session makes) as that.
///
/// ```swift
/// let session = SessionManager()
/// session.interceptor = RetryPolicy(retryLimit: 3)
/// ```
public struct RetryPolicy: RequestInterceptor {
    /// Alamofire's retry limit: 2.
    public static let defaultRetryLimit = 2
    /// Alamofire's backoff base: 2.
    public static let defaultExponentialBackoffBase = 2
    /// Alamofire's backoff scale: 0.5 s.
    public static let defaultExponentialBackoffScale: Duration = .milliseconds(500)
    /// The idempotent methods (RFC 9110 §9.2.2) Alamofire retries: DELETE, GET, HEAD, OPTIONS, PUT, TRACE.
    public static let defaultRetryableHTTPMethods: [HTTPMethod] = [.DELETE, .GET, .HEAD, .OPTIONS, .PUT, .TRACE]
    /// The statuses Alamofire retries: 408, 500, 502, 503, 504.
    public static let defaultRetryableHTTPStatusCodes: Set<Int> = [408, 500, 502, 503, 504]
    /// The statuses whose `Retry-After` is honoured: 429 and 503.
    public static let defaultRetryAfterStatusCodes: Set<Int> = [429, 503]
    /// The longest wait before one retry: 60 s.
    public static let defaultMaximumDelay: Duration = .seconds(60)
    /// How long after its first attempt a task may still start a retry: 120 s (two waits of the
    /// longest default delay).
    public static let defaultMaximumTotalTime: Duration = .seconds(120)

    /// How many times a task's request is sent again at most.
    public let retryLimit: Int
    /// The base of the exponential backoff.
    public let exponentialBackoffBase: Int
    /// The wait before the first retry, before jitter; each further retry multiplies it by
    /// ``exponentialBackoffBase``.
    public let exponentialBackoffScale: Duration
    /// The methods that may be sent again.
    public let retryableHTTPMethods: [HTTPMethod]
    /// The statuses retried with the backoff.
    public let retryableHTTPStatusCodes: Set<Int>
    /// The statuses whose `Retry-After` is honoured.
    public let retryAfterStatusCodes: Set<Int>
    /// The longest wait before one retry, whether the backoff or the server asked for it.
    public let maximumDelay: Duration
    /// How long after a task's first attempt started a retry may still start.
    public let maximumTotalTime: Duration
    /// Whether the backoff is full-jittered (a server's `Retry-After` never is).
    public let jitter: Bool
    private let randomFraction: @Sendable () -> Double

    /// A policy; every parameter defaults to the value above.
    ///
    /// - Parameters:
    ///   - retryLimit: How many times a request is retried at most (below 0 counts as 0).
    ///   - exponentialBackoffBase: The backoff's base: retry n waits `scale × base^n` (below 1 counts as 1).
    ///   - exponentialBackoffScale: The backoff's scale, the first retry's longest wait.
    ///   - retryableHTTPMethods: The methods retried; others never are.
    ///   - retryableHTTPStatusCodes: The statuses retried with the backoff.
    ///   - retryAfterStatusCodes: The statuses whose `Retry-After` is honoured.
    ///   - maximumDelay: The longest wait before one retry, whether the backoff or the server asked for it.
    ///   - maximumTotalTime: How long after a task's first attempt started a retry may still start.
    ///   - jitter: Whether the backoff is full-jittered (a server's `Retry-After` never is).
    ///   - randomFraction: The source of jitter, a number in `0...1` the backoff is multiplied by
    ///     (outside it, or not a number, it is clamped); uniform random by default. Give a fixed
    ///     one to make delays predictable in tests.
    public init(
        retryLimit: Int = Self.defaultRetryLimit,
        exponentialBackoffBase: Int = Self.defaultExponentialBackoffBase,
        exponentialBackoffScale: Duration = Self.defaultExponentialBackoffScale,
        retryableHTTPMethods: [HTTPMethod] = Self.defaultRetryableHTTPMethods,
        retryableHTTPStatusCodes: Set<Int> = Self.defaultRetryableHTTPStatusCodes,
        retryAfterStatusCodes: Set<Int> = Self.defaultRetryAfterStatusCodes,
        maximumDelay: Duration = Self.defaultMaximumDelay,
        maximumTotalTime: Duration = Self.defaultMaximumTotalTime,
        jitter: Bool = true,
        randomFraction: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.retryLimit = max(0, retryLimit)
        self.exponentialBackoffBase = max(1, exponentialBackoffBase)
        self.exponentialBackoffScale = max(.zero, exponentialBackoffScale)
        self.retryableHTTPMethods = retryableHTTPMethods
        self.retryableHTTPStatusCodes = retryableHTTPStatusCodes
        self.retryAfterStatusCodes = retryAfterStatusCodes
        self.maximumDelay = min(max(.zero, maximumDelay), RetryDecision.maximumDelay)
        self.maximumTotalTime = max(.zero, maximumTotalTime)
        self.jitter = jitter
        self.randomFraction = randomFraction
    }

    /// What the policy decides about `context`'s failed attempt; what ``retry(_:)`` answers.
    public func decision(for context: RetryContext) -> RetryDecision {
        self.decision(for: context, now: Date())
    }

    public func retry(_ context: RetryContext) async throws -> RetryDecision {
        self.decision(for: context)
    }

    /// ``decision(for:)`` with an HTTP-date `Retry-After` measured from `now`.
    func decision(for context: RetryContext, now: Date) -> RetryDecision {
        guard context.retryCount < self.retryLimit,
            !Self.isCancellation(context.error),
            self.retryableHTTPMethods.contains(context.request.method),
            self.retryableHTTPMethods.contains(context.task.originalRequest.method),
            let delay = self.delay(for: context, now: now),
            context.elapsed + delay <= self.maximumTotalTime
        else {
            return .doNotRetry
        }
        return delay == .zero ? .retry : .retryAfter(delay)
    }

    /// The wait before retrying `context`'s attempt, or `nil` when it is not retried.
    private func delay(for context: RetryContext, now: Date) -> Duration? {
        guard let head = context.response ?? Self.responseHead(of: context.error) else {
            return Self.isRetryable(context.error) ? self.backoff(retryCount: context.retryCount) : nil
        }
        if self.retryAfterStatusCodes.contains(head.statusCode),
            let requested = RetryAfter.delay(in: head.headers, now: now, maximum: self.maximumDelay)
        {
            return requested
        }
        guard self.retryableHTTPStatusCodes.contains(head.statusCode) else { return nil }
        return self.backoff(retryCount: context.retryCount)
    }

    /// The backoff before retry number `retryCount + 1`, capped at ``maximumDelay``, then jittered.
    func backoff(retryCount: Int) -> Duration {
        let scale = RetryAfter.seconds(of: self.exponentialBackoffScale)
        // A growth past any number is infinite, and capped; a zero scale stays zero.
        let growth = pow(Double(self.exponentialBackoffBase), Double(max(0, retryCount)))
        let computed = scale == 0 ? 0 : scale * growth
        let capped = min(computed, RetryAfter.seconds(of: self.maximumDelay))
        guard self.jitter else { return .seconds(capped) }
        let fraction = self.randomFraction()
        return .seconds(capped * (fraction.isNaN ? 1 : min(1, max(0, fraction))))
    }

    /// The response head a validation error carries, for a retrier asked without one.
    private static func responseHead(of error: LupineError) -> ResponseHead? {
        guard case .responseValidationFailed(.unacceptableStatusCode(_, let head, _, _)) = error else { return nil }
        return head
    }

    private static func isCancellation(_ error: LupineError) -> Bool {
        switch error {
        case .cancelled, .transport(.cancelled): return true
        default: return false
        }
    }

    /// Whether `error` means the connection was refused, lost or closed early, or timed out: worth
    /// another try. A host that does not resolve, TLS and trust failures, bad responses and body
    /// errors are not.
    static func isRetryable(_ error: LupineError) -> Bool {
        guard case .transport(let transportError) = error else { return false }
        switch transportError {
        case .connectionFailed, .connectTimeout, .readTimeout, .requestTimeout,
            .connectionClosedBeforeResponse, .connectionClosedMidBody, .connectionClosedMidUpload, .requestNotProcessed, .proxyConnectionFailed,
            .proxyCouldNotReachOrigin:
            return true
        case .invalidURL, .unsupportedScheme, .hostNotFound, .tlsHandshakeFailed, .serverTrustRejected,
            .invalidResponse, .decompressionLimitExceeded, .decompressionFailed, .requestBodyFailed,
            .requestBodyLengthMismatch, .invalidHeader, .cancelled, .shutdown, .uploadStalledAfterAnswer, .unixSocketUnusable, .proxyFailed:
            return false
        }
    }
}
