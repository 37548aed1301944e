import Foundation

/// Serializes `parameters` into a URL query or form body the way AFNetworking's
/// `AFQueryStringFromParameters` does.
///
/// - Dictionary keys are sorted ascending by their text (ordinal comparison), at every level.
/// - A nested dictionary gives `key[subkey]=value`; an array gives `key[]=value` per element, in
///   order; a `Set` gives `key=value` per element, sorted by text.
/// - `NSNull()` or any `Optional.none` (for example `String?.none`) gives the bare key `key`.
/// - A `Bool` gives `1` or `0`; a string, a `Character` or a number (`Int` and the other
///   integers, `Double`, `Float`, `Decimal`, `NSNumber`) gives its text.
/// - Field and value are each percent-escaped with ``percentEscaped(_:)``, so the brackets of a
///   nested field are escaped too (`key%5Bsubkey%5D=value`); pairs are joined with `&`.
///
/// - Throws: ``LupineError/parameterEncodingFailed(_:)`` with
///   ``LupineError/ParameterEncodingFailureReason/unsupportedValue(key:type:)`` for a value (or a
///   dictionary key) of any other type, such as `Data`, `Date`, `URL` or a type of your own: its
///   `description` is never sent in its place.
public func queryString(from parameters: [String: any Sendable]) throws(LupineError) -> String {
    try QueryStringPair.pairs(field: nil, value: parameters, keepingBytes: false)
        .map(\.urlEncoded)
        .joined(separator: "&")
}

/// One `field=value` component of a query string or one multipart field, before escaping.
struct QueryStringPair {
    /// What a field carries.
    enum Value {
        /// A null value: a bare field in a query string, an empty multipart field.
        case null
        /// Text.
        case text(String)
        /// Bytes sent as they are, in a multipart field only (a `Data` or `[UInt8]` value).
        case bytes([UInt8])
    }

    /// The field, with the brackets of its nesting (`user[name]`, `tags[]`).
    var field: String
    /// The value.
    var value: Value

    /// The escaped component. Only text and null occur in a query string.
    var urlEncoded: String {
        guard case .text(let text) = value else { return percentEscaped(field) }
        return "\(percentEscaped(field))=\(percentEscaped(text))"
    }

    /// Flattens `value`, found under `field` (`nil` at the top level), into pairs. With
    /// `keepingBytes`, a `Data` or `[UInt8]` value is one field of raw bytes (multipart);
    /// without, `Data` is refused and `[UInt8]` is an array of numbers.
    ///
    /// - Throws: ``LupineError/ParameterEncodingFailureReason/unsupportedValue(key:type:)``.
    static func pairs(field: String?, value: Any, keepingBytes: Bool) throws(LupineError) -> [QueryStringPair] {
        if keepingBytes, let bytes = Self.rawBytes(value) {
            return [QueryStringPair(field: field ?? "", value: .bytes(bytes))]
        }
        switch ParameterNode(value) {
        case .null:
            return [QueryStringPair(field: field ?? "", value: .null)]
        case .dictionary(let entries):
            var keyed: [(key: String, value: Any)] = []
            for entry in entries {
                keyed.append((try Self.text(of: entry.key.base, at: field ?? ""), entry.value))
            }
            var result: [QueryStringPair] = []
            for entry in keyed.sorted(by: { $0.key < $1.key }) {
                let nested = field.map { "\($0)[\(entry.key)]" } ?? entry.key
                result += try pairs(field: nested, value: entry.value, keepingBytes: keepingBytes)
            }
            return result
        case .array(let elements):
            var result: [QueryStringPair] = []
            for element in elements {
                result += try pairs(field: "\(field ?? "")[]", value: element, keepingBytes: keepingBytes)
            }
            return result
        case .set(let elements):
            var result: [QueryStringPair] = []
            for element in elements.map(\.base).sorted(by: { String(describing: $0) < String(describing: $1) }) {
                result += try pairs(field: field, value: element, keepingBytes: keepingBytes)
            }
            return result
        case .leaf(let leaf):
            return [QueryStringPair(field: field ?? "", value: .text(try Self.text(of: leaf, at: field ?? "")))]
        }
    }

    /// The bytes of a `Data` or `[UInt8]` value (looking through `Optional`), else `nil`. Only
    /// an array whose type is `[UInt8]` counts: an `[Any]` of numbers stays an array.
    private static func rawBytes(_ value: Any) -> [UInt8]? {
        guard case .some(let unwrapped) = ParameterNode.unwrapped(value) else { return nil }
        if let data = unwrapped as? Data {
            return Array(data)
        }
        if type(of: unwrapped) == [UInt8].self {
            return unwrapped as? [UInt8]
        }
        return nil
    }

    /// A leaf value's text under the query-string rules: `1`/`0` for a Boolean, as `NSNumber`
    /// gives it; the text of a string or a number.
    ///
    /// - Throws: ``LupineError/ParameterEncodingFailureReason/unsupportedValue(key:type:)`` for
    ///   any other type, naming `field`.
    private static func text(of leaf: Any, at field: String) throws(LupineError) -> String {
        if let flag = leaf as? Bool, type(of: leaf) == Bool.self {
            return flag ? "1" : "0"
        }
        switch leaf {
        case is any StringProtocol, is Character, is NSString, is any BinaryInteger, is any BinaryFloatingPoint, is Decimal, is NSNumber:
            return String(describing: leaf)
        default:
            throw .parameterEncodingFailed(.unsupportedValue(key: field, type: String(describing: type(of: leaf))))
        }
    }
}
