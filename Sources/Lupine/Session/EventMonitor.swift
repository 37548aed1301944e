import Foundation

/// Everything known when a task completes, as the completion notification carries it.
///
/// An immutable object rather than a struct: it is handed from the task to its notification,
/// monitors and completion handler, and a struct of this size costs dozens of value-witness
/// calls per copy where an object costs one retain.
public final class TaskCompletion: Sendable {
    /// The response head, when one arrived.
    public let response: ResponseHead?
    /// The body bytes.
    public let responseData: [UInt8]
    /// The serialized value, when serialization produced one (also alongside a status error).
    public let serializedObject: (any Sendable)?
    /// The error, when the task failed.
    public let error: LupineError?
    /// The transport metrics of the final request.
    public let metrics: TransportMetrics?
    /// The metrics of every request the task sent, in order: redirect hops, answered challenges
    /// and retried attempts, then the final request; empty for a response from a cache.
    public var transactionMetrics: [TransportMetrics] {
        self.metrics.map { self.earlierMetrics + [$0] } ?? self.earlierMetrics
    }
    /// The metrics of the requests before the final one (made into ``transactionMetrics`` only
    /// when asked: most tasks send one request).
    private let earlierMetrics: [TransportMetrics]
    /// How many times a retrier had the task's request sent again.
    public let retryCount: Int
    /// The URLs redirected through, in order.
    public let redirectChain: [URL]
    /// Where a download task's file is, when it completed successfully.
    public let fileURL: URL?
    /// What the session's ``HTTPCache`` did for the task: a hit, a revalidation or a miss;
    /// `nil` when no ``HTTPCache`` was asked.
    public let cacheStatus: CacheStatus?

    init(
        response: ResponseHead?,
        responseData: [UInt8],
        serializedObject: (any Sendable)?,
        error: LupineError?,
        metrics: TransportMetrics?,
        earlierMetrics: [TransportMetrics],
        retryCount: Int,
        redirectChain: [URL],
        fileURL: URL?,
        cacheStatus: CacheStatus?
    ) {
        self.response = response
        self.responseData = responseData
        self.serializedObject = serializedObject
        self.error = error
        self.metrics = metrics
        self.earlierMetrics = earlierMetrics
        self.retryCount = retryCount
        self.redirectChain = redirectChain
        self.fileURL = fileURL
        self.cacheStatus = cacheStatus
    }
}

/// Receives a session's task events, in the order they happen: the Swift form of the
/// notifications. Every method has an empty default, so a monitor implements only what it needs.
public protocol EventMonitor: Sendable {
    /// A task started or continued.
    func taskDidResume(_ task: SessionTask)
    /// A task was suspended.
    func taskDidSuspend(_ task: SessionTask)
    /// A task completed (once per task).
    func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion)
    /// The session was invalidated.
    func sessionDidInvalidate(_ manager: SessionManager)

    // The request pipeline's points, in the order a task meets them (see ``RequestInterceptor``).

    /// A ``ResponseCache`` answered the task: nothing is sent.
    func task(_ task: SessionTask, didReceiveCachedResponse response: CachedResponse)
    /// The task's interceptor adapted `original` into `adapted`.
    func task(_ task: SessionTask, didAdapt original: Request, to adapted: Request)
    /// An attempt starts: `retryCount` 0 for the first, then one more for each retry.
    func task(_ task: SessionTask, didStartAttempt retryCount: Int, with request: Request)
    /// The task follows a redirect of `response` with `request`.
    func task(_ task: SessionTask, willRedirectTo request: Request, for response: ResponseHead)
    /// `request` is handed to the transport, as it is to be sent (the transport may still fail
    /// to connect): an attempt's first request, a followed redirect's, or one sent again to
    /// answer a Basic challenge, with the cookie jar's cookies and a URL's credentials in its
    /// header fields.
    func task(_ task: SessionTask, willSend request: Request)
    /// A Basic challenge was met and `disposition` decided about it.
    func task(_ task: SessionTask, didReceive challenge: AuthenticationChallenge, disposition: AuthenticationDisposition)
    /// The retriers decided about the failed attempt of `context`.
    func task(_ task: SessionTask, didDecide decision: RetryDecision, for context: RetryContext)
}

extension EventMonitor {
    public func taskDidResume(_ task: SessionTask) {}
    public func taskDidSuspend(_ task: SessionTask) {}
    public func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion) {}
    public func sessionDidInvalidate(_ manager: SessionManager) {}
    public func task(_ task: SessionTask, didReceiveCachedResponse response: CachedResponse) {}
    public func task(_ task: SessionTask, didAdapt original: Request, to adapted: Request) {}
    public func task(_ task: SessionTask, didStartAttempt retryCount: Int, with request: Request) {}
    public func task(_ task: SessionTask, willRedirectTo request: Request, for response: ResponseHead) {}
    public func task(_ task: SessionTask, willSend request: Request) {}
    public func task(_ task: SessionTask, didReceive challenge: AuthenticationChallenge, disposition: AuthenticationDisposition) {}
    public func task(_ task: SessionTask, didDecide decision: RetryDecision, for context: RetryContext) {}
}
