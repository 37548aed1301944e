import Foundation

extension ResponseSerializer {
    /// Serializes and wraps the value in `any Sendable`.
    public func serializeAny(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<any Sendable> {
        let result = self.serialize(head: head, data: data, request: request)
        return SerializedResponse(value: result.value.map { $0 as any Sendable }, error: result.error)
    }
}

extension ResponseSerializer where SerializedObject == any Sendable {
    /// Serializes: the value is `any Sendable` already, and wrapping it again would box it twice.
    public func serializeAny(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<any Sendable> {
        self.serialize(head: head, data: data, request: request)
    }
}
