/// The extension points one task runs with, resolved when the task is made: the request's own
/// before the session's, so the loop never has to look twice.
struct TaskFeatures: Sendable {
    /// The request's interceptor, then the session's, as one; `nil` when neither is set.
    let interceptor: (any RequestInterceptor)?
    /// The request's redirect handler, else the task's redirect hook, else the session's handler,
    /// else the session's hook; `nil` follows.
    var redirectHandler: (any RedirectHandler)?
    /// The request's cached-response handler, else the task's will-cache hook, else the session's
    /// handler, else the session's hook; `nil` stores as the cache decides.
    let cachedResponseHandler: (any CachedResponseHandler)?
    let urlCache: (any ResponseCache)?
    /// ``urlCache`` when it is an ``HTTPCache``, whose rules the loop follows itself.
    let httpCache: HTTPCache?
    /// The session's jar, unless the request does not handle cookies.
    let cookieStorage: CookieStorage?
    var monitors: [any EventMonitor]
    /// What counts and traces the task, when the session has metrics or a tracer; also among
    /// ``monitors``.
    let observation: RequestObservation?
    /// The session's tasks that run for no caller.
    let backgroundTasks: BackgroundTasks

    init(request: Request, session: SessionFeatures, taskHooks: SessionHooks, sessionHooks: SessionHooks, monitors: [any EventMonitor]) {
        switch (request.interceptor, session.interceptor) {
        case (let own?, let shared?): self.interceptor = Interceptor(interceptors: [own, shared])
        case (let own?, nil): self.interceptor = own
        case (nil, let shared): self.interceptor = shared
        }
        self.redirectHandler =
            request.redirectHandler ?? taskHooks.willPerformRedirection.map { HookRedirectHandler(hook: $0) }
            ?? session.redirectHandler ?? sessionHooks.willPerformRedirection.map { HookRedirectHandler(hook: $0) }
        self.cachedResponseHandler =
            request.cachedResponseHandler ?? taskHooks.dataTaskWillCacheResponse.map(ResponseCacher.init(hook:))
            ?? session.cachedResponseHandler ?? sessionHooks.dataTaskWillCacheResponse.map(ResponseCacher.init(hook:))
        self.urlCache = session.urlCache
        self.httpCache = session.urlCache as? HTTPCache
        self.cookieStorage = request.httpShouldHandleCookies ? session.cookieStorage : nil
        self.monitors = monitors
        self.observation = session.observability?.observation()
        if let observation = self.observation {
            self.monitors.append(observation)
        }
        self.backgroundTasks = session.backgroundTasks
    }

    /// Tells every monitor, in order.
    func tell(_ event: (any EventMonitor) -> Void) {
        for monitor in self.monitors {
            event(monitor)
        }
    }
}

/// The extension points set on a session (``SessionManager/interceptor`` and its siblings).
struct SessionFeatures: Sendable {
    var interceptor: (any RequestInterceptor)?
    var redirectHandler: (any RedirectHandler)?
    var cachedResponseHandler: (any CachedResponseHandler)?
    var urlCache: (any ResponseCache)?
    var cookieStorage: CookieStorage? = CookieStorage()
    /// ``SessionManager/metrics`` and ``SessionManager/tracer``; `nil` when neither is set.
    var observability: SessionObservability?
    /// Cancelled when the session is invalidated.
    let backgroundTasks = BackgroundTasks()
}
