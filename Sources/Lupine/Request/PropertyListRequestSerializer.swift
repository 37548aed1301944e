import Foundation

/// Builds requests with a property-list body: AFNetworking's `AFPropertyListRequestSerializer`.
///
/// Parameters of the methods in ``RequestSerializer/httpMethodsEncodingParametersInURI`` still
/// go into the URL query, as ``HTTPRequestSerializer`` puts them. For the other methods the
/// parameters become the body, written by `PropertyListSerialization` in ``format``, with
/// `Content-Type: application/x-plist` unless the request sets one; without parameters the body
/// is left as it is.
public struct PropertyListRequestSerializer: RequestSerializer {
    /// The shared HTTP configuration: default headers, timeout, methods in the URI.
    public var base: HTTPRequestSerializer
    /// The format of the body: `.xml` (the default) or `.binary`. Foundation cannot write
    /// `.openStep`; asking for it is an encoding error.
    public var format: PropertyListSerialization.PropertyListFormat
    /// The options handed to `PropertyListSerialization`; currently unused by Foundation.
    public var writeOptions: PropertyListSerialization.WriteOptions

    /// Creates a serializer writing property lists in `format`, on the HTTP configuration `base`.
    public init(
        format: PropertyListSerialization.PropertyListFormat = .xml,
        writeOptions: PropertyListSerialization.WriteOptions = 0,
        base: HTTPRequestSerializer = HTTPRequestSerializer()
    ) {
        self.base = base
        self.format = format
        self.writeOptions = writeOptions
    }

    /// Returns `request` with the default header fields it lacks and `parameters` in its query
    /// or as its property-list body.
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
    ///   ``LupineError/ParameterEncodingFailureReason/propertyListEncodingFailed(parameters:reason:)``
    ///   naming the first value a property list cannot represent (null, a non-string key, a
    ///   `Set`, a custom type), or when ``format`` is `.openStep`; otherwise as
    ///   ``HTTPRequestSerializer/serialize(_:parameters:)``.
    public func serialize(_ request: Request, parameters: [String: any Sendable]?) throws -> Request {
        try base.serialize(request, parameters: parameters, contentType: "application/x-plist") { parameters in
            try FoundationParameterEncoding.propertyList(format, writeOptions).body(from: parameters)
        }
    }
}
