import NIOConcurrencyHelpers

/// What a task's completion makes of its body: the serializer the completion notification names,
/// and the serialization itself, as a closure made where the serializer's type is known. The
/// session's machinery stays free of the serializer's type; a caller that awaits the value in
/// that type has the closure hand it to a ``TypedValue`` as well, so it is never cast back.
@usableFromInline
struct TaskSerialization: Sendable {
    let serializer: any ResponseSerializer
    let serialize: @Sendable (ResponseHead?, [UInt8], Request) -> SerializedResponse<any Sendable>

    @usableFromInline
    init(
        serializer: any ResponseSerializer,
        serialize: @escaping @Sendable (ResponseHead?, [UInt8], Request) -> SerializedResponse<any Sendable>
    ) {
        self.serializer = serializer
        self.serialize = serialize
    }

    /// Serialization by `serializer`, its value seen only as `any Sendable`.
    init(_ serializer: any ResponseSerializer) {
        self.init(serializer: serializer) { head, data, request in
            serializer.serializeAny(head: head, data: data, request: request)
        }
    }
}

/// A serialized value kept in its own type for the caller awaiting it; set by the task's
/// serialization (before the completion is delivered) and taken once it has been.
@usableFromInline
final class TypedValue<Value: Sendable>: Sendable {
    @usableFromInline
    let value = NIOLockedValueBox<Value?>(nil)

    @inlinable
    init() {}

    /// Keeps `value`.
    @inlinable
    func set(_ value: Value?) {
        self.value.withLockedValue { $0 = value }
    }

    /// The value kept, handed over once.
    @inlinable
    func take() -> Value? {
        self.value.withLockedValue { $0.take() }
    }
}
