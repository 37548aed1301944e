import Foundation

/// Something that decodes a `Decodable` value from bytes, such as `JSONDecoder` or
/// `PropertyListDecoder`; what ``DecodableResponseSerializer`` decodes with.
public protocol DataDecoder: Sendable {
    /// Decodes a value of `type` from `data`.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value
}

extension JSONDecoder: DataDecoder {}

extension PropertyListDecoder: DataDecoder {}
