import Foundation

/// Builds requests with a JSON body: AFNetworking's `AFJSONRequestSerializer`.
///
/// Parameters of the methods in ``RequestSerializer/httpMethodsEncodingParametersInURI`` still
/// go into the URL query, as ``HTTPRequestSerializer`` puts them. For the other methods the
/// parameters become the body, written by `JSONSerialization` with ``writingOptions``, with
/// `Content-Type: application/json` unless the request sets one; without parameters the body is
/// left as it is.
///
/// A body that is not a dictionary, such as a top-level array, goes through
/// ``serialize(_:jsonObject:)``, ``request(method:urlString:relativeTo:jsonObject:)``, or, from
/// any `Encodable` value, ``request(method:urlString:relativeTo:encodableParameters:)``.
public struct JSONRequestSerializer: RequestSerializer {
    /// The shared HTTP configuration: default headers, timeout, methods in the URI.
    public var base: HTTPRequestSerializer
    /// The options handed to `JSONSerialization`, such as `.sortedKeys` or `.prettyPrinted`.
    public var writingOptions: JSONSerialization.WritingOptions

    /// Creates a serializer writing JSON with `writingOptions`, on the HTTP configuration `base`.
    public init(writingOptions: JSONSerialization.WritingOptions = [], base: HTTPRequestSerializer = HTTPRequestSerializer()) {
        self.base = base
        self.writingOptions = writingOptions
    }

    /// Returns `request` with the default header fields it lacks and `parameters` in its query
    /// or as its JSON body.
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
    ///   ``LupineError/ParameterEncodingFailureReason/jsonEncodingFailed(parameters:reason:)``
    ///   naming the first value JSON cannot represent (a `Date`, a custom type, a `Set`, a
    ///   non-string key, NaN or an infinity); otherwise as ``HTTPRequestSerializer/serialize(_:parameters:)``.
    public func serialize(_ request: Request, parameters: [String: any Sendable]?) throws -> Request {
        try base.serialize(request, parameters: parameters, contentType: "application/json") { parameters in
            try FoundationParameterEncoding.json(writingOptions).body(from: parameters)
        }
    }

    /// Returns `request` with the default header fields it lacks and `jsonObject` as its JSON
    /// body: an array or a dictionary, as AFNetworking's serializer takes any JSON object (a
    /// dictionary is serialized exactly as ``serialize(_:parameters:)`` does).
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
    ///   ``LupineError/ParameterEncodingFailureReason/jsonEncodingFailed(parameters:reason:)``
    ///   when `jsonObject` is neither an array nor a dictionary, holds a value JSON cannot
    ///   represent, or is an array for a method that carries its parameters in the URL query;
    ///   ``LupineError/invalidHeader(name:reason:)``.
    public func serialize(_ request: Request, jsonObject: any Sendable) throws -> Request {
        if let parameters = jsonObject as? [String: any Sendable] {
            return try self.serialize(request, parameters: parameters)
        }
        guard !self.base.encodesParametersInURI(request.method) else {
            throw LupineError.parameterEncodingFailed(
                .jsonEncodingFailed(
                    parameters: "\(jsonObject)",
                    reason: "a \(request.method.rawValue) request carries its parameters in the URL query, which takes only a dictionary"
                )
            )
        }
        let body = try FoundationParameterEncoding.json(self.writingOptions).body(from: jsonObject)
        return try self.base.serialize(request, body: body, contentType: "application/json")
    }

    /// Builds a request for `method` to `urlString`, resolved against `baseURL` when given, with
    /// `jsonObject` (an array or a dictionary) as its JSON body; see ``serialize(_:jsonObject:)``.
    ///
    /// - Throws: ``LupineError/invalidURL(_:)``; whatever ``serialize(_:jsonObject:)`` throws.
    public func request(
        method: HTTPMethod,
        urlString: String,
        relativeTo baseURL: URL? = nil,
        jsonObject: any Sendable
    ) throws -> Request {
        try self.serialize(self.base.makeRequest(method: method, urlString: urlString, relativeTo: baseURL), jsonObject: jsonObject)
    }

    /// Builds a request for `method` to `urlString`, resolved against `baseURL` when given, with
    /// `parameters` encoded by `JSONEncoder` as its JSON body, whatever its top level, as
    /// Alamofire's `JSONParameterEncoder` takes it: a keyed value as ``serialize(_:parameters:)``
    /// serializes a dictionary (into the query for the methods that carry parameters there), an
    /// array as ``serialize(_:jsonObject:)`` does.
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
    ///   ``LupineError/ParameterEncodingFailureReason/jsonEncodingFailed(parameters:reason:)`` when
    ///   the value cannot be encoded, encodes as a single value (a string, a number), or is an
    ///   array for a method that carries its parameters in the URL query;
    ///   ``LupineError/invalidURL(_:)``; ``LupineError/invalidHeader(name:reason:)``.
    public func request<Parameters: Encodable & Sendable>(
        method: HTTPMethod,
        urlString: String,
        relativeTo baseURL: URL? = nil,
        encodableParameters parameters: Parameters
    ) throws -> Request {
        try self.request(method: method, urlString: urlString, relativeTo: baseURL, jsonObject: EncodableParameters.jsonValue(from: parameters))
    }
}
