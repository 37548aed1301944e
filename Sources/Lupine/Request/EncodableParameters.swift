import Foundation

/// Parameters given as an `Encodable` value, turned into the dictionary the serializers take.
enum EncodableParameters {
    /// `parameters` encoded with `JSONEncoder` and read back with `JSONSerialization`: strings,
    /// `NSNumber`s (Booleans included), `NSNull`s, arrays and dictionaries.
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
    ///   ``LupineError/ParameterEncodingFailureReason/jsonEncodingFailed(parameters:reason:)`` when
    ///   the value cannot be encoded or does not encode as a JSON object.
    static func dictionary<Parameters: Encodable>(from parameters: Parameters) throws -> [String: any Sendable] {
        let object: Any
        do {
            let data = try JSONEncoder().encode(parameters)
            object = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        } catch {
            throw failure(parameters, reason: "\(error)")
        }
        guard let dictionary = object as? [String: Any] else {
            throw failure(parameters, reason: "it encodes as \(type(of: object)), not as a keyed container (a JSON object)")
        }
        return dictionary.mapValues(sendable)
    }

    /// `object`, read by `JSONSerialization`, rebuilt from `Sendable` values. `JSONSerialization`
    /// yields only dictionaries, arrays, strings, numbers and `NSNull`.
    private static func sendable(_ object: Any) -> any Sendable {
        switch object {
        case let dictionary as [String: Any]:
            return dictionary.mapValues(sendable)
        case let array as [Any]:
            return array.map(sendable)
        case let string as String:
            return string
        case let number as NSNumber:
            return number
        default:
            return NSNull()
        }
    }

    /// The error for parameters that cannot be used.
    private static func failure(_ parameters: some Encodable, reason: String) -> LupineError {
        .parameterEncodingFailed(.jsonEncodingFailed(parameters: "\(parameters)", reason: reason))
    }
}
