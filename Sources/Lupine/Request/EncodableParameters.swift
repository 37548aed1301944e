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
        guard let dictionary = try Self.jsonValue(from: parameters) as? [String: any Sendable] else {
            throw failure(parameters, reason: "it does not encode as a keyed container (a JSON object)")
        }
        return dictionary
    }

    /// `parameters` encoded with `JSONEncoder` and read back as ``dictionary(from:)`` reads it,
    /// whatever its top level: a dictionary, an array, or a single value.
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
    ///   ``LupineError/ParameterEncodingFailureReason/jsonEncodingFailed(parameters:reason:)`` when
    ///   the value cannot be encoded.
    static func jsonValue<Parameters: Encodable>(from parameters: Parameters) throws -> any Sendable {
        do {
            let data = try JSONEncoder().encode(parameters)
            return sendable(try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed))
        } catch {
            throw failure(parameters, reason: "\(error)")
        }
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
