import Foundation

/// Tries several serializers in turn, as AFNetworking's `AFCompoundResponseSerializer` does: the
/// first result without an error wins; when every serializer reports an error, the last one's
/// result (value, if any, and error) is returned.
///
/// The value is the winning serializer's value as `any Sendable`. The compound accepts what any
/// of its serializers accepts, and setting ``acceptableStatusCodes`` or
/// ``acceptableContentTypes`` sets them on every serializer. With no serializers nothing is
/// accepted.
public struct CompoundResponseSerializer: ResponseSerializer {
    /// The serializers, in the order they are tried.
    public var responseSerializers: [any ResponseSerializer]

    /// Creates a compound of `responseSerializers`, tried in order.
    public init(_ responseSerializers: [any ResponseSerializer]) {
        self.responseSerializers = responseSerializers
    }

    /// The union of the serializers' acceptable status codes; setting it sets every serializer's.
    public var acceptableStatusCodes: IndexSet {
        get {
            self.responseSerializers.reduce(into: IndexSet()) { $0.formUnion($1.acceptableStatusCodes) }
        }
        set {
            for index in self.responseSerializers.indices {
                self.responseSerializers[index].acceptableStatusCodes = newValue
            }
        }
    }

    /// The union of the serializers' acceptable MIME types, or `nil` (any) when one of them
    /// accepts any; setting it sets every serializer's.
    public var acceptableContentTypes: Set<String>? {
        get {
            var union: Set<String> = []
            for serializer in self.responseSerializers {
                guard let types = serializer.acceptableContentTypes else { return nil }
                union.formUnion(types)
            }
            return union
        }
        set {
            for index in self.responseSerializers.indices {
                self.responseSerializers[index].acceptableContentTypes = newValue
            }
        }
    }

    /// Tries each serializer in turn and returns the first result without an error, else the
    /// last serializer's result.
    public func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<any Sendable> {
        var last: SerializedResponse<any Sendable>?
        for serializer in self.responseSerializers {
            let result = serializer.serializeAny(head: head, data: data, request: request)
            if result.error == nil { return result }
            last = result
        }
        return last ?? SerializedResponse(value: nil, error: self.validationError(head: head, data: data))
    }
}
