import Foundation

/// Turns a method, a URL string and parameters into a ``Request``, the way AFNetworking's
/// `AFURLRequestSerialization` does. Serializers are pure values: they never touch the network.
///
/// Every serializer shares one HTTP configuration, its ``base`` ``HTTPRequestSerializer``:
/// default header fields, timeout, cache policy, the methods that carry parameters in the URL
/// and the query-string serialization. A session manager can hold `any RequestSerializer`, build
/// requests with ``request(method:urlString:relativeTo:parameters:)`` and read or change that
/// configuration through the forwarding members below, whatever the body format.
public protocol RequestSerializer: Sendable {
    /// The shared HTTP configuration. For an ``HTTPRequestSerializer`` this is the serializer
    /// itself.
    var base: HTTPRequestSerializer { get set }

    /// Returns `request` with the default header fields it lacks and `parameters` encoded into
    /// its URL or body (AFNetworking's `requestBySerializingRequest:withParameters:error:`).
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` when the parameters cannot be
    ///   encoded, ``LupineError/invalidHeader(name:reason:)`` when a header field of the request
    ///   or a default one is not allowed by HTTP, ``LupineError/invalidURL(_:)`` when the URL
    ///   with the query is not a URL.
    func serialize(_ request: Request, parameters: [String: any Sendable]?) throws -> Request
}

extension RequestSerializer {
    /// Builds a request for `method` to `urlString`, resolved against `baseURL` when given, with
    /// the configured timeout and cache policy, then serializes `parameters` into it.
    ///
    /// - Throws: ``LupineError/invalidURL(_:)`` when `urlString` (against `baseURL`) is not an
    ///   absolute URL with a scheme and a host; whatever ``serialize(_:parameters:)`` throws.
    public func request(
        method: HTTPMethod,
        urlString: String,
        relativeTo baseURL: URL? = nil,
        parameters: [String: any Sendable]? = nil
    ) throws -> Request {
        try serialize(base.makeRequest(method: method, urlString: urlString, relativeTo: baseURL), parameters: parameters)
    }

    /// Builds a request as ``request(method:urlString:relativeTo:parameters:)`` does, with
    /// parameters from an `Encodable` value: it is encoded with `JSONEncoder` and read back as a
    /// dictionary, so its coding keys become the parameter names.
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
    ///   ``LupineError/ParameterEncodingFailureReason/jsonEncodingFailed(parameters:reason:)`` when
    ///   the value cannot be encoded or does not encode as a JSON object; otherwise as
    ///   ``request(method:urlString:relativeTo:parameters:)``.
    public func request<Parameters: Encodable & Sendable>(
        method: HTTPMethod,
        urlString: String,
        relativeTo baseURL: URL? = nil,
        encodableParameters parameters: Parameters
    ) throws -> Request {
        try request(
            method: method,
            urlString: urlString,
            relativeTo: baseURL,
            parameters: EncodableParameters.dictionary(from: parameters)
        )
    }

    /// The default header fields applied to every request that lacks them.
    public var httpRequestHeaders: HTTPHeaders {
        base.httpRequestHeaders
    }

    /// The HTTP methods whose parameters go into the URL query rather than the body.
    public var httpMethodsEncodingParametersInURI: Set<String> {
        get { base.httpMethodsEncodingParametersInURI }
        set { base.httpMethodsEncodingParametersInURI = newValue }
    }

    /// The timeout given to built requests, in seconds; `nil` for none.
    public var timeoutInterval: TimeInterval? {
        get { base.timeoutInterval }
        set { base.timeoutInterval = newValue }
    }

    /// The cache policy given to built requests.
    public var cachePolicy: Request.CachePolicy {
        get { base.cachePolicy }
        set { base.cachePolicy = newValue }
    }

    /// Whether built requests use the session's cookies.
    public var httpShouldHandleCookies: Bool {
        get { base.httpShouldHandleCookies }
        set { base.httpShouldHandleCookies = newValue }
    }

    /// The encoding of form bodies.
    public var stringEncoding: String.Encoding {
        get { base.stringEncoding }
        set { base.stringEncoding = newValue }
    }

    /// The default value of the header field `name` (case-insensitive), or `nil`.
    public func value(forHTTPHeaderField name: String) -> String? {
        base.value(forHTTPHeaderField: name)
    }

    /// Sets the default header field `name` to `value`, or removes it when `value` is `nil`.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        base.setValue(value, forHTTPHeaderField: name)
    }

    /// Sets a default `Authorization` header field for HTTP Basic authentication.
    public mutating func setAuthorizationHeaderField(username: String, password: String) {
        base.setAuthorizationHeaderField(username: username, password: password)
    }

    /// Removes the default `Authorization` header field.
    public mutating func clearAuthorizationHeader() {
        base.clearAuthorizationHeader()
    }

    /// Replaces the default query-string serialization with `serialization`.
    public mutating func setQueryStringSerialization(
        _ serialization: @escaping HTTPRequestSerializer.QueryStringSerialization
    ) {
        base.setQueryStringSerialization(serialization)
    }
}
