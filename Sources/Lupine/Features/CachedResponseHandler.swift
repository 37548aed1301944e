/// Decides, per response, what a ``ResponseCache`` keeps: AFNetworking's
/// `dataTaskWillCacheResponse`. Set per session (``SessionManager/cachedResponseHandler``) or
/// per request (``Request/cachedResponseHandler``, asked instead of the session's).
public protocol CachedResponseHandler: Sendable {
    /// The response to store for `task`: `response` as it is, changed, or `nil` to store nothing.
    func task(_ task: SessionTask, willCache response: CachedResponse) async -> CachedResponse?
}

/// The usual ``CachedResponseHandler``s: store, store nothing, or store what a closure makes of it.
public struct ResponseCacher: CachedResponseHandler {
    private let decide: @Sendable (SessionTask, CachedResponse) async -> CachedResponse?

    /// A handler that stores what `decide` returns (`nil`: nothing).
    public init(_ decide: @escaping @Sendable (SessionTask, CachedResponse) async -> CachedResponse?) {
        self.decide = decide
    }

    /// A handler asking a ``SessionHooks/dataTaskWillCacheResponse`` hook.
    init(hook: @escaping @Sendable (SessionTask, CachedResponse) -> CachedResponse?) {
        self.decide = { task, response in hook(task, response) }
    }

    /// Stores every response as it is.
    public static let cache = ResponseCacher { _, response in response }
    /// Stores nothing.
    public static let doNotCache = ResponseCacher { _, _ in nil }

    public func task(_ task: SessionTask, willCache response: CachedResponse) async -> CachedResponse? {
        await self.decide(task, response)
    }
}
