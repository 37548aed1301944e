import Foundation

/// Validates a response and parses its body with `PropertyListSerialization`, as AFNetworking's
/// `AFPropertyListResponseSerializer` does (XML, binary and OpenStep formats).
///
/// The value is the property list made `Sendable`: dictionaries are `[String: any Sendable]`,
/// arrays `[any Sendable]`, and the leaves `String`, `Int`, `Double`, `Bool`, `Date` and `Data`.
/// An empty body is no value and no error. A binary property list that would crash Foundation on
/// Linux (one holding a set, or a date that is not a number) or hang it (one standing for more than
/// a million objects or 256 MiB once its shared references are followed) fails with
/// ``LupineError/ResponseSerializationFailureReason/propertyListSerializationFailed(reason:)``
/// before Foundation sees it.
public struct PropertyListResponseSerializer: ResponseSerializer {
    /// The status codes that pass validation (default 200..<300).
    public var acceptableStatusCodes: IndexSet
    /// The MIME types that pass validation: `application/x-plist` by default.
    public var acceptableContentTypes: Set<String>?

    /// Creates a serializer.
    public init(
        acceptableStatusCodes: IndexSet = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = ["application/x-plist"]
    ) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Validates the response and parses its body as a property list.
    public func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<any Sendable> {
        self.validateThenParse(head: head, data: data) { () throws(LupineError) -> (any Sendable)? in
            guard !data.isEmpty else { return nil }
            if let refusal = BinaryPropertyListGuard.refusal(of: data) {
                throw .responseSerializationFailed(.propertyListSerializationFailed(reason: refusal))
            }
            let object: Any
            do {
                object = try PropertyListSerialization.propertyList(from: Data(data), options: [], format: nil)
            } catch {
                throw .responseSerializationFailed(.propertyListSerializationFailed(reason: error.debugReason))
            }
            // A binary property list can hold a null (marker 0x00), which no property list type
            // names: refused rather than handed on as a value the documentation does not list
            // (found by the property-list fuzzer).
            guard !Self.holdsNull(object) else {
                throw .responseSerializationFailed(.propertyListSerializationFailed(reason: "the property list holds a null, which is no property list value"))
            }
            return FoundationObjectConverter.sendableValue(from: object, removingNulls: false)
        }
    }

    /// Whether `object`, or any value inside it, is a null.
    private static func holdsNull(_ object: Any) -> Bool {
        switch object {
        case is NSNull: return true
        case let array as [Any]: return array.contains(where: Self.holdsNull)
        case let dictionary as [AnyHashable: Any]: return dictionary.values.contains(where: Self.holdsNull)
        default: return false
        }
    }
}
