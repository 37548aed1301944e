/// The session-wide extension points of the request pipeline (see ``RequestExecutor`` for where
/// each is called). A request's own, when set, comes first (an interceptor) or instead (the
/// handlers). Tasks take the values set when they are created.
extension SessionManager {
    /// The adapter and retrier every task's requests go through, after the request's own
    /// (``Request/interceptor``); `nil` for none.
    public var interceptor: (any RequestInterceptor)? {
        get { self.settings.withLockedValue { $0.features.interceptor } }
        set { self.settings.withLockedValue { $0.features.interceptor = newValue } }
    }

    /// Decides about redirects when a request has no ``Request/redirectHandler``; `nil` leaves
    /// it to the ``SessionHooks/willPerformRedirection`` hook, and without it every redirect is followed.
    public var redirectHandler: (any RedirectHandler)? {
        get { self.settings.withLockedValue { $0.features.redirectHandler } }
        set { self.settings.withLockedValue { $0.features.redirectHandler = newValue } }
    }

    /// Decides what ``urlCache`` keeps of each response, when a request has no
    /// ``Request/cachedResponseHandler``: AFNetworking's `dataTaskWillCacheResponse`.
    public var cachedResponseHandler: (any CachedResponseHandler)? {
        get { self.settings.withLockedValue { $0.features.cachedResponseHandler } }
        set { self.settings.withLockedValue { $0.features.cachedResponseHandler = newValue } }
    }

    /// Where responses are kept and answered from, by each request's ``Request/cachePolicy``.
    /// An ``HTTPCache`` follows RFC 9111 (validation, `Vary`, invalidation, streamed stores); any
    /// other ``ResponseCache`` answers as its protocol says. `nil` for no cache: the default,
    /// except for a manager made with a transport of its own (``init(configuration:)``), which
    /// gets an in-memory ``HTTPCache`` of 4 MiB, as URLSession's default configuration does on Linux.
    public var urlCache: (any ResponseCache)? {
        get { self.settings.withLockedValue { $0.features.urlCache } }
        set { self.settings.withLockedValue { $0.features.urlCache = newValue } }
    }

    /// The cookies sent with requests and set by responses, for requests whose
    /// ``Request/httpShouldHandleCookies`` is on; `nil` for none. Each manager starts with a
    /// memory jar of its own (AFNetworking handles cookies by default; a jar shared by every
    /// manager of a process would carry one server user's cookies into another's requests).
    public var cookieStorage: CookieStorage? {
        get { self.settings.withLockedValue { $0.features.cookieStorage } }
        set { self.settings.withLockedValue { $0.features.cookieStorage = newValue } }
    }
}
