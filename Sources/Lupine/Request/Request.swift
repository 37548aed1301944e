import Foundation

/// One HTTP request as the session layer builds it: what a request serializer produces and a
/// task sends. A plain value: building or changing it never touches the network.
public struct Request: Sendable {
    /// Where the request body comes from.
    public enum Body: Sendable {
        /// No body.
        case none
        /// A body held in memory.
        case bytes([UInt8])
        /// A body streamed from a file in chunks.
        case file(URL)
        /// A body produced by an async sequence, with its length when known.
        case stream(length: Int?, chunks: @Sendable () -> AsyncThrowingStream<ByteBuffer, any Error>)
        /// A `multipart/form-data` body, produced part by part as it is sent.
        case multipart(MultipartFormData)
    }

    /// How a stored response may be used (see ``ResponseCache``), as URLSession's policies.
    public enum CachePolicy: Sendable, Equatable {
        /// Use the protocol's rules.
        case useProtocolCachePolicy
        /// Always go to the network.
        case reloadIgnoringLocalCacheData
        /// Use a cached response of any age, going to the network only without one.
        case returnCacheDataElseLoad
        /// Use only a cached response.
        case returnCacheDataDontLoad
    }

    /// The fields, shared by copies of the request until one of them changes: a request is
    /// stored and passed along several times per task, and each copy is then one reference
    /// count rather than one for each field.
    private var storage: RequestStorage

    /// The absolute URL.
    public var url: URL {
        get { self.storage.fields.url }
        _modify { yield &self.uniqueStorage().fields.url }
    }
    /// The method.
    public var method: HTTPMethod {
        get { self.storage.fields.method }
        _modify { yield &self.uniqueStorage().fields.method }
    }
    /// The header fields.
    public var headers: HTTPHeaders {
        get { self.storage.fields.headers }
        _modify { yield &self.uniqueStorage().fields.headers }
    }
    /// The body.
    public var body: Body {
        get { self.storage.fields.body }
        _modify { yield &self.uniqueStorage().fields.body }
    }
    /// How long the request may take as a whole, in seconds; `nil` for no limit.
    public var timeoutInterval: TimeInterval? {
        get { self.storage.fields.timeoutInterval }
        _modify { yield &self.uniqueStorage().fields.timeoutInterval }
    }
    /// How a cached response may be used.
    public var cachePolicy: CachePolicy {
        get { self.storage.fields.cachePolicy }
        _modify { yield &self.uniqueStorage().fields.cachePolicy }
    }
    /// Whether the session's ``CookieStorage`` adds its cookies to this request and keeps the
    /// ones its responses set (AFNetworking's `HTTPShouldHandleCookies`); `true` by default.
    public var httpShouldHandleCookies: Bool {
        get { self.storage.fields.httpShouldHandleCookies }
        _modify { yield &self.uniqueStorage().fields.httpShouldHandleCookies }
    }
    /// The HTTP versions this request may use, as curl's `--http1.1` and `--http2-prior-knowledge`
    /// for one transfer; `nil` (the default) uses the transport's
    /// `TransportConfiguration.httpVersion`.
    public var httpVersion: HTTPVersionSelection? {
        get { self.storage.fields.httpVersion }
        _modify { yield &self.uniqueStorage().fields.httpVersion }
    }
    /// The proxies for this request; `nil` (the default) uses the transport's
    /// `TransportConfiguration.proxy`, and empty settings send it straight to the origin.
    public var proxy: ProxySettings? {
        get { self.storage.fields.proxy }
        _modify { yield &self.uniqueStorage().fields.proxy }
    }
    /// This request's own adapter and retrier, run before the session's
    /// (``SessionManager/interceptor``); `nil` for the session's only.
    public var interceptor: (any RequestInterceptor)? {
        get { self.storage.fields.interceptor }
        _modify { yield &self.uniqueStorage().fields.interceptor }
    }
    /// This request's own redirect handler, asked instead of the session's
    /// (``SessionManager/redirectHandler``); `nil` for the session's.
    public var redirectHandler: (any RedirectHandler)? {
        get { self.storage.fields.redirectHandler }
        _modify { yield &self.uniqueStorage().fields.redirectHandler }
    }
    /// This request's own cached-response handler, asked instead of the session's
    /// (``SessionManager/cachedResponseHandler``); `nil` for the session's.
    public var cachedResponseHandler: (any CachedResponseHandler)? {
        get { self.storage.fields.cachedResponseHandler }
        _modify { yield &self.uniqueStorage().fields.cachedResponseHandler }
    }

    /// Creates a request.
    public init(
        url: URL,
        method: HTTPMethod = .GET,
        headers: HTTPHeaders = [:],
        body: Body = .none,
        timeoutInterval: TimeInterval? = 60,
        cachePolicy: CachePolicy = .useProtocolCachePolicy,
        interceptor: (any RequestInterceptor)? = nil
    ) {
        self.storage = RequestStorage(
            RequestStorage.Fields(
                url: url,
                method: method,
                headers: headers,
                body: body,
                timeoutInterval: timeoutInterval,
                cachePolicy: cachePolicy,
                interceptor: interceptor
            )
        )
    }

    /// The storage, copied first when another request shares it.
    private mutating func uniqueStorage() -> RequestStorage {
        if !isKnownUniquelyReferenced(&self.storage) {
            self.storage = RequestStorage(self.storage.fields)
        }
        return self.storage
    }

    /// The value of the header field `name` (case-insensitive), or `nil`.
    public func value(forHTTPHeaderField name: String) -> String? {
        self.headers.first(name: name)
    }

    /// Sets the header field `name` to `value`, or removes it when `value` is `nil`.
    ///
    /// Any name and value are stored; one that HTTP does not allow (a name that is not a token,
    /// a value with CR, LF, NUL or another control character) fails the serializer that builds
    /// on the request, or the task that sends it, with ``LupineError/invalidHeader(name:reason:)``.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        if let value {
            self.headers.replaceOrAddUnchecked(name: name, value: value)
        } else {
            self.headers.remove(name: name)
        }
    }

    /// Adds a header field `name: value` after any field of that name: for a field that is a
    /// list, the same as a value joined to the existing one with a comma (RFC 9110 §5.3), as
    /// URLRequest's `addValue(_:forHTTPHeaderField:)` does. Names and values are checked as
    /// ``setValue(_:forHTTPHeaderField:)``'s are.
    public mutating func addValue(_ value: String, forHTTPHeaderField name: String) {
        self.headers.addUnchecked(name: name, value: value)
    }
}

extension Request.Body {
    /// Whether there is a body to send: anything but ``none`` and empty bytes.
    var hasContent: Bool {
        switch self {
        case .none: false
        case .bytes(let bytes): !bytes.isEmpty
        case .file, .stream, .multipart: true
        }
    }

    /// The body's length when it is known without reading it: what the transport sends as
    /// `Content-Length` (a regular file's size, a multipart form's sum); `nil` for a stream of
    /// unknown length or a file that cannot tell (a FIFO, a device), which go chunked.
    public var knownLength: Int? {
        switch self {
        case .none: return 0
        case .bytes(let bytes): return bytes.count
        case .file(let url):
            if case .sized(let length)? = try? FileBodyKind.of(path: url.path) { return length }
            return nil
        case .stream(let length, _): return length
        case .multipart(let form): return form.contentLength
        }
    }
}
