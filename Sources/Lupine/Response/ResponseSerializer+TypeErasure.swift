extension ResponseSerializer {
    /// Serializes and hands the value over as `any Sendable`, so that serializers of different
    /// value types can be used side by side (``CompoundResponseSerializer``) or through an
    /// `any ResponseSerializer` (``ErasedResponseSerializer``). Internal: the session keeps each
    /// serializer's own type from the verb to the completion.
    func serializeAny(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<any Sendable> {
        let result = self.serialize(head: head, data: data, request: request)
        return SerializedResponse(value: result.value.map { $0 as any Sendable }, error: result.error)
    }
}
