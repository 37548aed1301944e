/// What the session's ``HTTPCache`` did for a task (``TaskCompletion/cacheStatus``).
public enum CacheStatus: String, Sendable, Equatable {
    /// The response came from the cache and nothing was sent.
    case hit
    /// A stored response was validated with the server, which answered `304 Not Modified`: the
    /// stored body was delivered with the refreshed head.
    case revalidated
    /// The response came from the network.
    case miss
}
