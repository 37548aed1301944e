import Foundation

/// A Foundation serialization that writes a parameter dictionary as a request body, with its
/// options. `JSONSerialization` traps on a value it cannot write, so the parameters are checked
/// and rewritten into plain Foundation values first, and the first value the format cannot
/// represent is reported by its key path.
enum FoundationParameterEncoding {
    /// `JSONSerialization`: strings, Booleans, integers, finite floating-point numbers,
    /// `Decimal`, `NSNumber` and null, in arrays and string-keyed dictionaries.
    case json(JSONSerialization.WritingOptions)
    /// `PropertyListSerialization`: strings, Booleans, integers, floating-point numbers,
    /// `Decimal`, `NSNumber`, `Date` and `Data`, in arrays and string-keyed dictionaries; no null.
    case propertyList(PropertyListSerialization.PropertyListFormat, PropertyListSerialization.WriteOptions)

    /// A value the format cannot represent, and where it is.
    struct InvalidValue: Error, CustomStringConvertible {
        /// The path to the value: `user.tags[2]`; empty for the parameters themselves.
        var keyPath: String
        /// Why the value has no form in the format.
        var reason: String

        var description: String {
            keyPath.isEmpty ? "the parameters \(reason)" : "the value at \(keyPath) \(reason)"
        }
    }

    /// The body for `parameters`: a dictionary, or any other value the format takes at the top
    /// level (an array for JSON).
    ///
    /// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
    ///   ``LupineError/ParameterEncodingFailureReason/jsonEncodingFailed(parameters:reason:)`` or
    ///   ``LupineError/ParameterEncodingFailureReason/propertyListEncodingFailed(parameters:reason:)``.
    func body(from parameters: any Sendable) throws(LupineError) -> [UInt8] {
        do {
            return Array(try write(foundationObject(from: parameters)))
        } catch let invalid as InvalidValue {
            throw failure(parameters, reason: invalid.description)
        } catch {
            throw failure(parameters, reason: "\(error)")
        }
    }

    /// Whether this is JSON.
    private var isJSON: Bool {
        if case .json = self { true } else { false }
    }

    /// The format's name in messages.
    private var name: String {
        isJSON ? "JSON" : "property-list"
    }

    /// `object`, already checked, written by Foundation.
    private func write(_ object: Any) throws -> Data {
        switch self {
        case .json(let options):
            guard object is [Any] || object is [String: Any] else {
                throw InvalidValue(keyPath: "", reason: "are neither an array nor a dictionary, one of which JSON needs at the top level")
            }
            guard JSONSerialization.isValidJSONObject(object) else {
                throw InvalidValue(keyPath: "", reason: "are not accepted by JSONSerialization")
            }
            return try JSONSerialization.data(withJSONObject: object, options: options)
        case .propertyList(let format, let options):
            guard format != .openStep else {
                throw InvalidValue(keyPath: "", reason: "cannot be written in the OpenStep format, which Foundation only reads")
            }
            guard PropertyListSerialization.propertyList(object, isValidFor: format) else {
                throw InvalidValue(keyPath: "", reason: "are not accepted by PropertyListSerialization")
            }
            return try PropertyListSerialization.data(fromPropertyList: object, format: format, options: options)
        }
    }

    /// The error reporting `parameters` with `reason`.
    private func failure(_ parameters: any Sendable, reason: String) -> LupineError {
        let description = "\(parameters)"
        return isJSON
            ? .parameterEncodingFailed(.jsonEncodingFailed(parameters: description, reason: reason))
            : .parameterEncodingFailed(.propertyListEncodingFailed(parameters: description, reason: reason))
    }

    /// `value` rewritten for the format: `Optional`s unwrapped, `nil` and `NSNull` as `NSNull`
    /// (JSON only), dictionaries as `[String: Any]`, arrays as `[Any]`, other values unchanged.
    ///
    /// - Throws: ``InvalidValue`` for the first value the format cannot represent.
    private func foundationObject(from value: Any, at keyPath: String = "") throws(InvalidValue) -> Any {
        switch ParameterNode(value) {
        case .null:
            guard isJSON else {
                throw InvalidValue(keyPath: keyPath, reason: "is null, which has no property-list form")
            }
            return NSNull()
        case .dictionary(let entries):
            var dictionary: [String: Any] = [:]
            for entry in entries {
                guard let key = entry.key.base as? String else {
                    throw InvalidValue(
                        keyPath: keyPath,
                        reason: "has the key \(entry.key.base) of type \(type(of: entry.key.base)); \(name) keys must be strings"
                    )
                }
                dictionary[key] = try foundationObject(from: entry.value, at: keyPath.isEmpty ? key : "\(keyPath).\(key)")
            }
            return dictionary
        case .array(let elements):
            var array: [Any] = []
            for (index, element) in elements.enumerated() {
                array.append(try foundationObject(from: element, at: "\(keyPath)[\(index)]"))
            }
            return array
        case .set:
            throw InvalidValue(keyPath: keyPath, reason: "is a Set, which has no \(name) form; use an Array")
        case .leaf(let leaf):
            if let reason = rejection(of: leaf) {
                throw InvalidValue(keyPath: keyPath, reason: reason)
            }
            return leaf
        }
    }

    /// Why the format cannot represent `leaf`, or `nil` when it can.
    private func rejection(of leaf: Any) -> String? {
        switch leaf {
        case is String, is Bool, is any BinaryInteger:
            return nil
        case let number as Double:
            return finiteness(of: number)
        case let number as Float:
            return finiteness(of: Double(number))
        case let number as Decimal:
            return number.isNaN ? "is Decimal.nan, which has no \(name) form" : nil
        case let number as NSNumber:
            return finiteness(of: number.doubleValue)
        case is Date, is Data:
            return isJSON ? "is a \(type(of: leaf)), which has no JSON form" : nil
        default:
            return "is a \(type(of: leaf)), which has no \(name) form"
        }
    }

    /// Why the format cannot represent `number`, or `nil` when it can: JSON has no NaN or
    /// infinity; property lists do.
    private func finiteness(of number: Double) -> String? {
        guard isJSON, !number.isFinite else {
            return nil
        }
        return "is \(number), which JSON cannot represent: JSON numbers are finite"
    }
}
