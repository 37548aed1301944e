import Foundation

/// A ``Request``'s fields, in one allocation that copies of the request share.
///
/// `@unchecked Sendable`: guarded by copy-on-write. A storage is changed only through the one
/// ``Request`` that holds it alone (`isKnownUniquelyReferenced`); a request that shares it copies
/// it first, so a storage another request or thread can see is never written.
final class RequestStorage: @unchecked Sendable {
    var url: URL
    var method: HTTPMethod
    var headers: HTTPHeaders
    var body: Request.Body
    var timeoutInterval: TimeInterval?
    var cachePolicy: Request.CachePolicy
    var httpShouldHandleCookies = true
    var interceptor: (any RequestInterceptor)?
    var redirectHandler: (any RedirectHandler)?
    var cachedResponseHandler: (any CachedResponseHandler)?

    init(
        url: URL,
        method: HTTPMethod,
        headers: HTTPHeaders,
        body: Request.Body,
        timeoutInterval: TimeInterval?,
        cachePolicy: Request.CachePolicy,
        interceptor: (any RequestInterceptor)?
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutInterval = timeoutInterval
        self.cachePolicy = cachePolicy
        self.interceptor = interceptor
    }

    /// A storage holding the same fields as `other`.
    convenience init(copying other: RequestStorage) {
        self.init(
            url: other.url,
            method: other.method,
            headers: other.headers,
            body: other.body,
            timeoutInterval: other.timeoutInterval,
            cachePolicy: other.cachePolicy,
            interceptor: other.interceptor
        )
        self.httpShouldHandleCookies = other.httpShouldHandleCookies
        self.redirectHandler = other.redirectHandler
        self.cachedResponseHandler = other.cachedResponseHandler
    }
}
