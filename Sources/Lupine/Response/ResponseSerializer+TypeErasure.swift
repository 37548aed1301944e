import Foundation

extension ResponseSerializer {
    /// Serializes like ``serialize(head:data:request:)`` and hands the value over as
    /// `any Sendable`, so serializers of different value types can be used side by side, as
    /// ``CompoundResponseSerializer`` does, or through an `any ResponseSerializer`.
    public func serializeAny(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<any Sendable> {
        let result = self.serialize(head: head, data: data, request: request)
        return SerializedResponse(value: result.value.map { $0 as any Sendable }, error: result.error)
    }
}
