import Foundation

/// Validates a response and parses its JSON body, as AFNetworking's `AFJSONResponseSerializer` does.
///
/// UTF-8 bodies (what RFC 8259 requires between systems) are parsed by Lupine's own strict parser,
/// which makes `Sendable` values directly; a UTF-16 or UTF-32 body goes through `JSONSerialization`.
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
    /// `JSONSerialization`'s reading options, of which `.fragmentsAllowed` (a top-level string,
    /// number, boolean or null) has an effect; values are Swift values, so the mutability options
    /// have none.
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
            guard !data.isEmpty, !(data.count == 1 && data[0] == UInt8(ascii: " ")) else { return nil }
            if self.needsJSONSerialization(data) {
                return try self.parseWithJSONSerialization(data)
            }
            do throws(JSONValueParser.Failure) {
                return try JSONValueParser.parse(
                    data,
                    allowingFragments: self.readingOptions.contains(.fragmentsAllowed),
                    removingNulls: self.removesKeysWithNullValues
                )
            } catch {
                throw .responseSerializationFailed(.jsonSerializationFailed(reason: error.reason))
            }
        }
    }

    /// Whether `data` is UTF-16 or UTF-32, which only `JSONSerialization` reads: a byte order
    /// mark, or a zero byte among the first two, which JSON text in those encodings always has.
    private func needsJSONSerialization(_ data: [UInt8]) -> Bool {
        guard data.count >= 2 else { return data.first == 0 }
        let (first, second) = (data[0], data[1])
        return (first == 0xFE && second == 0xFF) || (first == 0xFF && second == 0xFE) || first == 0 || second == 0
    }

    private func parseWithJSONSerialization(_ data: [UInt8]) throws(LupineError) -> any Sendable {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(data), options: self.readingOptions)
        } catch {
            throw .responseSerializationFailed(.jsonSerializationFailed(reason: error.debugReason))
        }
        return FoundationObjectConverter.sendableValue(from: object, removingNulls: self.removesKeysWithNullValues)
    }
}
