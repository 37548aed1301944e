/// What the session's ``HTTPCache`` did for a task (``TaskCompletion/cacheStatus``).
public enum CacheStatus: String, Sendable, Equatable {
    /// The response came from the cache and nothing was sent.
    case hit
    /// A stored response was validated with the server, which answered `304 Not Modified`: the
    /// stored body was delivered with the refreshed head.
    case revalidated
    /// A stored response past its freshness was delivered as it is, because the request's
    /// `max-stale` accepted it, or the response's `stale-while-revalidate` allowed it (nothing
    /// waited for the network: one revalidation runs in the background), or `stale-if-error`
    /// (the response's or the request's) let it stand in for a failed request: a transport
    /// error, or a final 500, 502, 503 or 504.
    case stale
    /// The response came from the network.
    case miss
}
