import Foundation

/// What an adapter knows about the request it is about to change.
public struct AdaptContext: Sendable {
    /// The task the request belongs to.
    public let task: SessionTask
    /// How many times the task's request was retried before this attempt (0 for the first).
    public let retryCount: Int
}

/// Changes each request just before it is sent: signs it, adds a token, rewrites a header.
///
/// Called once per attempt (the first and every retry), before redirects and challenges of
/// that attempt, never for a response served from a cache. It runs in the task's own Swift
/// task, so cancelling that Swift task reaches it; a task of the async API runs in its caller's
/// Swift task, where ``SessionTask/cancel()`` (or invalidating the session) cannot, so an
/// adapter that may wait long ends its wait when `context.task` is cancelled, as
/// ``AuthenticationInterceptor`` does. A retrier, a retry delay and a redirect handler run where
/// any cancel reaches them. A throw fails the task with
/// ``LupineError/requestAdaptationFailed(underlying:)`` (a ``LupineError`` is reported as itself)
/// and nothing is sent.
public protocol RequestAdapter: Sendable {
    /// The request to send instead of `request`.
    func adapt(_ request: Request, for context: AdaptContext) async throws -> Request
}

/// What a retrier knows about the attempt that failed.
public struct RetryContext: Sendable {
    /// The task whose attempt failed.
    public let task: SessionTask
    /// The request that was sent (after adaptation, the last hop of its redirects).
    public let request: Request
    /// The response head, when the server answered (a status of 400 or above); its body is not
    /// read yet and is discarded when the request is retried.
    public let response: ResponseHead?
    /// Why the attempt failed: a transport error, or for a response
    /// ``LupineError/ResponseValidationFailureReason/unacceptableStatusCode(code:head:body:underlying:)``
    /// with an empty body.
    public let error: LupineError
    /// How many retries were already made (0 when the first attempt failed).
    public let retryCount: Int
    /// Time since the task's first attempt started.
    public let elapsed: Duration
}

/// What to do about a failed attempt.
public enum RetryDecision: Sendable {
    /// Send the request again now.
    case retry
    /// Send the request again after `delay`. A negative delay counts as zero, one above
    /// ``maximumDelay`` as ``maximumDelay``; cancelling the task ends the wait at once.
    case retryAfter(Duration)
    /// Deliver the failure as it is.
    case doNotRetry
    /// Fail the task with `error`: a ``LupineError`` as itself, anything else as
    /// ``LupineError/requestRetryFailed(underlying:original:)``.
    case doNotRetryWithError(any Error)

    /// The longest wait a decision can ask for: one hour.
    public static let maximumDelay: Duration = .seconds(3600)
}

/// Decides whether a failed attempt is sent again.
///
/// Asked after an attempt ends in an error other than a cancellation (a transport error such as a
/// refused or lost connection or a timeout), or in a final response (after redirects and
/// challenges) whose status is 400 or above, before its body is read. Never asked for a request
/// whose body cannot be sent twice (a one-shot stream), nor for an error in reading or serializing
/// a body that has started. A throw counts as ``RetryDecision/doNotRetryWithError(_:)``.
public protocol RequestRetrier: Sendable {
    /// Whether, and when, to send the request of `context` again.
    func retry(_ context: RetryContext) async throws -> RetryDecision
}

/// An adapter and a retrier in one, set on a session (``SessionManager/interceptor``) or on one
/// request (``Request/interceptor``); the request's own runs first. Both methods have defaults
/// that change nothing, so a type implements only what it needs.
public protocol RequestInterceptor: RequestAdapter, RequestRetrier {}

extension RequestInterceptor {
    public func adapt(_ request: Request, for context: AdaptContext) async throws -> Request { request }
    public func retry(_ context: RetryContext) async throws -> RetryDecision { .doNotRetry }
}
