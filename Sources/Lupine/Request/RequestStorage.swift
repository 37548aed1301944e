import Foundation

/// A ``Request``'s fields, in one allocation that copies of the request share.
///
/// `@unchecked Sendable`: guarded by copy-on-write. A storage is changed only through the one
/// ``Request`` that holds it alone (`isKnownUniquelyReferenced`); a request that shares it copies
/// it first, so a storage another request or thread can see is never written. Its fields are
/// ``Fields``, which the compiler checks to be `Sendable`.
final class RequestStorage: @unchecked Sendable {
    var fields: Fields

    init(_ fields: Fields) {
        self.fields = fields
    }
}

extension RequestStorage {
    /// The fields themselves.
    struct Fields: Sendable {
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
        var httpVersion: HTTPVersionSelection?
        var proxy: ProxySettings?
    }
}
