import Foundation

/// Validates a response and parses its body with `JSONSerialization`, as AFNetworking's
/// `AFJSONResponseSerializer` does.
///
/// The value is the JSON made `Sendable`: objects are `[String: any Sendable]`, arrays
/// `[any Sendable]`, strings `String`, numbers `Int`, `Double` or `Bool` (`UInt64` for an
/// unsigned integer above `Int.max`), and `null` is ``JSONNull``.
///
/// An empty body, or a body of a single space (what some servers send for "no content"), is no
/// value and no error.
public struct JSONResponseSerializer: ResponseSerializer {
    /// The status codes that pass validation (default 200..<300).
    public var acceptableStatusCodes: IndexSet
    /// The MIME types that pass validation: `application/json`, `text/json` and
    /// `text/javascript` by default.
    public var acceptableContentTypes: Set<String>?
    /// The options handed to `JSONSerialization`, such as `.fragmentsAllowed` for a top-level
    /// string or number. The mutability options have no effect: values are Swift values.
    public var readingOptions: JSONSerialization.ReadingOptions
    /// Whether keys whose value is `null` are removed from objects, and `null` elements from
    /// arrays, at every depth (default `false`).
    public var removesKeysWithNullValues: Bool

    /// Creates a serializer.
    public init(
        readingOptions: JSONSerialization.ReadingOptions = [],
        removesKeysWithNullValues: Bool = false,
        acceptableStatusCodes: IndexSet = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = ["application/json", "text/json", "text/javascript"]
    ) {
        self.readingOptions = readingOptions
        self.removesKeysWithNullValues = removesKeysWithNullValues
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Validates the response and parses its body as JSON.
    public func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<any Sendable> {
        self.validateThenParse(head: head, data: data) { () throws(LupineError) -> (any Sendable)? in
            guard !data.isEmpty, data != [UInt8(ascii: " ")] else { return nil }
            let object: Any
            do {
                object = try JSONSerialization.jsonObject(with: Data(data), options: self.readingOptions)
            } catch {
                throw .responseSerializationFailed(.jsonSerializationFailed(reason: error.debugReason))
            }
            return FoundationObjectConverter.sendableValue(from: object, removingNulls: self.removesKeysWithNullValues)
        }
    }
}
