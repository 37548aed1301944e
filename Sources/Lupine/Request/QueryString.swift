/// Serializes `parameters` into a URL query or form body the way AFNetworking's
/// `AFQueryStringFromParameters` does.
///
/// - Dictionary keys are sorted ascending by their description (ordinal comparison), at every
///   level.
/// - A nested dictionary gives `key[subkey]=value`; an array gives `key[]=value` per element, in
///   order; a `Set` gives `key=value` per element, sorted by description.
/// - `NSNull()` or any `Optional.none` (for example `String?.none`) gives the bare key `key`.
/// - A `Bool` gives `1` or `0`; any other value gives its `description`.
/// - Field and value are each percent-escaped with ``percentEscaped(_:)``, so the brackets of a
///   nested field are escaped too (`key%5Bsubkey%5D=value`); pairs are joined with `&`.
public func queryString(from parameters: [String: any Sendable]) -> String {
    QueryStringPair.pairs(field: nil, value: parameters)
        .map(\.urlEncoded)
        .joined(separator: "&")
}

/// One `field=value` component of a query string, before escaping.
struct QueryStringPair {
    /// The field, with the brackets of its nesting (`user[name]`, `tags[]`).
    var field: String
    /// The value's text, or `nil` for a null value, which is written as the bare field.
    var value: String?

    /// The escaped component.
    var urlEncoded: String {
        guard let value else { return percentEscaped(field) }
        return "\(percentEscaped(field))=\(percentEscaped(value))"
    }

    /// Flattens `value`, found under `field` (`nil` at the top level), into pairs.
    static func pairs(field: String?, value: Any) -> [QueryStringPair] {
        switch ParameterNode(value) {
        case .null:
            return [QueryStringPair(field: field ?? "", value: nil)]
        case .dictionary(let entries):
            return entries
                .map { (key: String(describing: $0.key.base), value: $0.value) }
                .sorted { $0.key < $1.key }
                .flatMap { entry in
                    pairs(field: field.map { "\($0)[\(entry.key)]" } ?? entry.key, value: entry.value)
                }
        case .array(let elements):
            return elements.flatMap { pairs(field: "\(field ?? "")[]", value: $0) }
        case .set(let elements):
            return elements
                .map(\.base)
                .sorted { String(describing: $0) < String(describing: $1) }
                .flatMap { pairs(field: field, value: $0) }
        case .leaf(let leaf):
            return [QueryStringPair(field: field ?? "", value: text(of: leaf))]
        }
    }

    /// A leaf value's text: `1`/`0` for a Boolean, as `NSNumber` gives it, otherwise its description.
    private static func text(of leaf: Any) -> String {
        if let flag = leaf as? Bool, type(of: leaf) == Bool.self {
            return flag ? "1" : "0"
        }
        return String(describing: leaf)
    }
}
