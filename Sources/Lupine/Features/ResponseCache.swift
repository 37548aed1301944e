import Foundation

/// A response kept by a ``ResponseCache``: the head and the whole body, and when it was stored.
public struct CachedResponse: Sendable {
    /// The response head as it will be delivered.
    public var head: ResponseHead
    /// The body.
    public var data: [UInt8]
    /// When the response was received.
    public var storedAt: Date
    /// Anything the app wants kept with the response.
    public var userInfo: [String: String]

    /// A stored response.
    public init(head: ResponseHead, data: [UInt8], storedAt: Date = Date(), userInfo: [String: String] = [:]) {
        self.head = head
        self.data = data
        self.storedAt = storedAt
        self.userInfo = userInfo
    }
}

/// What a ``ResponseCache`` holds for a request.
public enum CacheLookup: Sendable {
    /// Nothing usable.
    case miss
    /// A response the cache's rules allow to be used without asking the server.
    case fresh(CachedResponse)
    /// A response the rules say must not be used without validation; used only by the cache
    /// policies that accept any stored response.
    case stale(CachedResponse)
}

/// Where responses are kept between requests (``SessionManager/urlCache``).
///
/// The execution loop asks it once per attempt, after the request's own preparation and before
/// its adapter, according to the request's ``Request/CachePolicy``:
/// - ``Request/CachePolicy/useProtocolCachePolicy``: a ``CacheLookup/fresh(_:)`` response is
///   delivered, and nothing is sent; otherwise the request goes to the network;
/// - ``Request/CachePolicy/reloadIgnoringLocalCacheData``: the cache is not asked;
/// - ``Request/CachePolicy/returnCacheDataElseLoad``: any stored response is delivered;
/// - ``Request/CachePolicy/returnCacheDataDontLoad``: any stored response is delivered; without
///   one the task fails with ``LupineError/resourceUnavailable(_:)`` and nothing is sent.
///
/// A response from the network whose body was read whole (data and upload tasks) is offered to
/// ``store(_:for:)`` once the ``CachedResponseHandler`` (the request's, else the session's) let it.
/// Downloads and streamed responses neither come from nor go to the cache.
///
/// The cache and the handler are called in the task's own Swift task, on every request: they
/// should answer at once (keep slow disk work off that path), and a task cancelled while they
/// run stops right after them.
public protocol ResponseCache: Sendable {
    /// What is stored for `request`.
    func lookup(_ request: Request) async -> CacheLookup
    /// Keeps `response` for `request`, if the cache's rules allow.
    func store(_ response: CachedResponse, for request: Request) async
}
