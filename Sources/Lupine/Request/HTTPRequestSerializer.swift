import Foundation

/// Builds requests whose parameters go into the URL query (`GET`, `HEAD`, `DELETE`) or into an
/// `application/x-www-form-urlencoded` body (every other method): AFNetworking's
/// `AFHTTPRequestSerializer`.
///
/// It also holds the HTTP configuration every ``RequestSerializer`` shares: default header fields
/// (`Accept-Language` from the preferred languages, `User-Agent` naming Lupine and the operating
/// system), timeout, cache policy and the query-string serialization.
public struct HTTPRequestSerializer: RequestSerializer {
    /// A custom query-string serialization: given the request being serialized and its
    /// parameters, returns the query string (without `?`). What it throws is reported as
    /// ``LupineError/ParameterEncodingFailureReason/customEncodingFailed(error:)``.
    public typealias QueryStringSerialization = @Sendable (Request, [String: any Sendable]) throws -> String

    /// The HTTP methods whose parameters go into the URL query rather than the body, upper-case.
    /// Defaults to `GET`, `HEAD` and `DELETE`.
    public var httpMethodsEncodingParametersInURI: Set<String> = ["GET", "HEAD", "DELETE"]
    /// The default header fields, applied to every serialized request that lacks them.
    public private(set) var httpRequestHeaders: HTTPHeaders = DefaultRequestHeaders.current
    /// The timeout given to built requests, in seconds; `nil` for none. Defaults to 60.
    public var timeoutInterval: TimeInterval? = 60
    /// The cache policy given to built requests.
    public var cachePolicy: Request.CachePolicy = .useProtocolCachePolicy
    /// Whether built requests use the session's cookies (AFNetworking's `HTTPShouldHandleCookies`).
    public var httpShouldHandleCookies = true
    /// The encoding of form bodies. Defaults to UTF-8.
    public var stringEncoding: String.Encoding = .utf8
    /// The custom query-string serialization, if one was set.
    private var queryStringSerialization: QueryStringSerialization?

    /// Creates a serializer with the default header fields and settings.
    public init() {}

    /// The serializer itself: an HTTP serializer is its own shared configuration.
    public var base: HTTPRequestSerializer {
        get { self }
        set { self = newValue }
    }

    /// The default value of the header field `name` (case-insensitive), or `nil`.
    public func value(forHTTPHeaderField name: String) -> String? {
        httpRequestHeaders.first(name: name)
    }

    /// Sets the default header field `name` to `value`, or removes it when `value` is `nil`.
    /// A field HTTP does not allow makes every request this serializer builds fail with
    /// ``LupineError/invalidHeader(name:reason:)``.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        if let value {
            httpRequestHeaders.replaceOrAddUnchecked(name: name, value: value)
        } else {
            httpRequestHeaders.remove(name: name)
        }
    }

    /// Sets a default `Authorization` header field for HTTP Basic authentication: `Basic`
    /// followed by the Base64 form of the UTF-8 bytes of `username:password`.
    public mutating func setAuthorizationHeaderField(username: String, password: String) {
        setValue(Credential(user: username, password: password).basicAuthorizationHeader, forHTTPHeaderField: "Authorization")
    }

    /// Removes the default `Authorization` header field.
    public mutating func clearAuthorizationHeader() {
        setValue(nil, forHTTPHeaderField: "Authorization")
    }

    /// Replaces ``queryString(from:)`` with `serialization` for every request this serializer
    /// builds. It is called whenever parameters are given, even an empty dictionary.
    public mutating func setQueryStringSerialization(_ serialization: @escaping QueryStringSerialization) {
        queryStringSerialization = serialization
    }

    /// Returns `request` with the default header fields it lacks and `parameters` as a query
    /// appended to its URL (with `&` when it already has one; nothing when the query is empty) or,
    /// for the other methods, as a form body with `Content-Type:
    /// application/x-www-form-urlencoded` unless the request sets one. No parameters give an
    /// empty body: an empty form is still a form.
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
    ///   ``LupineError/ParameterEncodingFailureReason/unsupportedValue(key:type:)`` for a
    ///   parameter the query-string rules do not define (see ``queryString(from:)``), or with
    ///   ``LupineError/ParameterEncodingFailureReason/customEncodingFailed(error:)`` when the
    ///   custom query-string serialization throws or its result cannot be written in
    ///   ``stringEncoding``; ``LupineError/invalidHeader(name:reason:)`` for a header field of the
    ///   request or a default one that HTTP does not allow; ``LupineError/invalidURL(_:)`` when
    ///   the URL with the query is not a URL.
    public func serialize(_ request: Request, parameters: [String: any Sendable]?) throws -> Request {
        var serialized = try applyingDefaultHeaders(to: request)
        let query = try parameters.map { try queryString(for: request, parameters: $0) }
        if encodesParametersInURI(request.method) {
            if let query, !query.isEmpty {
                serialized.url = try Self.url(serialized.url, appendingQuery: query)
            }
            return serialized
        }
        serialized.setValueIfAbsent("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        serialized.body = .bytes(try bytes(of: query ?? ""))
        return serialized
    }

    /// The serialization shared by the serializers with a body format of their own (JSON,
    /// property list): parameters of the methods in ``httpMethodsEncodingParametersInURI`` go into
    /// the query as here; otherwise the request gets the default header fields it lacks and, when
    /// there are parameters, `Content-Type: contentType` unless it sets one and the body `encode`
    /// makes of them. Without parameters the body is left as it is.
    func serialize(
        _ request: Request,
        parameters: [String: any Sendable]?,
        contentType: String,
        encodingBodyWith encode: ([String: any Sendable]) throws -> [UInt8]
    ) throws -> Request {
        if encodesParametersInURI(request.method) {
            return try serialize(request, parameters: parameters)
        }
        return try serialize(request, body: parameters.map(encode), contentType: contentType)
    }

    /// `request` with the default header fields it lacks and, when `body` is given, that body
    /// with `Content-Type: contentType` unless the request sets one.
    ///
    /// - Throws: ``LupineError/invalidHeader(name:reason:)``.
    func serialize(_ request: Request, body: [UInt8]?, contentType: String) throws(LupineError) -> Request {
        var serialized = try applyingDefaultHeaders(to: request)
        guard let body else {
            return serialized
        }
        serialized.setValueIfAbsent(contentType, forHTTPHeaderField: "Content-Type")
        serialized.body = .bytes(body)
        return serialized
    }

    /// A request for `method` to `urlString` resolved against `baseURL`, with this serializer's
    /// timeout and cache policy and nothing else.
    func makeRequest(method: HTTPMethod, urlString: String, relativeTo baseURL: URL?) throws -> Request {
        // Without a base the parsed URL is already absolute; the host is only checked for
        // presence, so it is read without percent-decoding it.
        let parsed = baseURL == nil ? URL(string: urlString) : URL(string: urlString, relativeTo: baseURL)?.absoluteURL
        guard let url = parsed,
            url.scheme != nil,
            let host = url.host(percentEncoded: true), !host.isEmpty
        else {
            throw LupineError.invalidURL(urlString)
        }
        var request = Request(url: url, method: method, timeoutInterval: timeoutInterval, cachePolicy: cachePolicy)
        request.httpShouldHandleCookies = httpShouldHandleCookies
        return request
    }

    /// Whether parameters of `method` go into the URL query.
    func encodesParametersInURI(_ method: HTTPMethod) -> Bool {
        // An upper-case ASCII name (the usual case) is looked up as it is, without a new string.
        let name = method.rawValue
        let isUpperCase = name.utf8.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
        return httpMethodsEncodingParametersInURI.contains(isUpperCase ? name : name.uppercased())
    }

    /// `request` with every default header field it does not already have.
    ///
    /// - Throws: ``LupineError/invalidHeader(name:reason:)`` for the first field of the result
    ///   that HTTP does not allow.
    private func applyingDefaultHeaders(to request: Request) throws(LupineError) -> Request {
        var result = request
        if request.headers.isEmpty {
            // A new request: the default fields as they are, shared rather than copied.
            result.headers = httpRequestHeaders
        } else {
            let missing = httpRequestHeaders.filter { !request.headers.contains(name: $0.name) }
            // As one block: NIO's `add(name:value:)` traps on a non-ASCII name, checked below.
            result.headers.add(contentsOf: HTTPHeaders(missing.map { ($0.name, $0.value) }))
        }
        try HeaderFieldValidation.validate(result.headers)
        return result
    }

    /// The query string for `parameters`, from the custom serialization when one is set.
    private func queryString(for request: Request, parameters: [String: any Sendable]) throws -> String {
        guard let queryStringSerialization else {
            return try Lupine.queryString(from: parameters)
        }
        do {
            return try queryStringSerialization(request, parameters)
        } catch {
            throw LupineError.parameterEncodingFailed(.customEncodingFailed(error: error))
        }
    }

    /// `query` in ``stringEncoding``. The built-in serialization yields ASCII only, so only a
    /// custom serialization can produce text the encoding cannot hold.
    private func bytes(of query: String) throws -> [UInt8] {
        guard let data = query.data(using: stringEncoding) else {
            throw LupineError.parameterEncodingFailed(
                .customEncodingFailed(error: UnrepresentableQueryString(query: query, encoding: stringEncoding))
            )
        }
        return Array(data)
    }

    /// `url` with `query` appended to its query, before any fragment.
    private static func url(_ url: URL, appendingQuery query: String) throws -> URL {
        let absolute = url.absoluteString
        let fragmentStart = absolute.firstIndex(of: "#") ?? absolute.endIndex
        let separator = url.query(percentEncoded: true) == nil ? "?" : "&"
        let string = absolute[..<fragmentStart] + separator + query + absolute[fragmentStart...]
        guard let result = URL(string: string) else {
            throw LupineError.invalidURL(string)
        }
        return result
    }
}

/// A query string that the serializer's string encoding cannot represent.
private struct UnrepresentableQueryString: Error, CustomStringConvertible {
    /// The query string.
    var query: String
    /// The encoding it could not be written in.
    var encoding: String.Encoding

    var description: String {
        "the query string \"\(query)\" cannot be written in \(encoding)"
    }
}

extension Request {
    /// Sets the header field `name` to `value` unless the request already has one.
    fileprivate mutating func setValueIfAbsent(_ value: String, forHTTPHeaderField name: String) {
        if !headers.contains(name: name) {
            headers.add(name: name, value: value)
        }
    }
}
