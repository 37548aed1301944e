import Foundation

/// Builds requests with a JSON body: AFNetworking's `AFJSONRequestSerializer`.
///
/// Parameters of the methods in ``RequestSerializer/httpMethodsEncodingParametersInURI`` still
/// go into the URL query, as ``HTTPRequestSerializer`` puts them. For the other methods the
/// parameters become the body, written by `JSONSerialization` with ``writingOptions``, with
/// `Content-Type: application/json` unless the request sets one; without parameters the body is
/// left as it is.
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
}
