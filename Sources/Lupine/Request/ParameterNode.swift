import Foundation

/// A parameter value seen through the shapes the request serializers treat differently. The one
/// place where an untyped parameter is taken apart, so that query strings, JSON and property
/// lists agree on what a dictionary, an array, a set and a null are.
enum ParameterNode {
    /// `NSNull()` or any `Optional.none`.
    case null
    /// A dictionary of any hashable key type, entries in no particular order.
    case dictionary([(key: AnyHashable, value: Any)])
    /// An array, in order.
    case array([Any])
    /// A set, elements in no particular order.
    case set([AnyHashable])
    /// Anything else: a string, a number, a Boolean, a date, a custom value.
    case leaf(Any)

    /// Classifies `value`, looking through any level of `Optional`.
    init(_ value: Any) {
        guard case .some(let value) = Self.unwrapped(value) else {
            self = .null
            return
        }
        if value is NSNull {
            self = .null
        } else if let dictionary = value as? [AnyHashable: Any] {
            self = .dictionary(dictionary.map { (key: $0.key, value: $0.value) })
        } else if let array = value as? [Any] {
            self = .array(array)
        } else if let set = value as? Set<AnyHashable> {
            self = .set(Array(set))
        } else {
            self = .leaf(value)
        }
    }

    /// `value` with every level of `Optional` removed, or `nil` when one of them is `.none`.
    static func unwrapped(_ value: Any) -> Any? {
        guard let optional = value as? any OptionalParameter else { return value }
        return optional.wrappedParameter.flatMap(Self.unwrapped)
    }
}

/// Lets `ParameterNode` see through an `Optional` held in an `Any`.
protocol OptionalParameter {
    /// The wrapped value, or `nil` for `.none`.
    var wrappedParameter: Any? { get }
}

extension Optional: OptionalParameter {
    var wrappedParameter: Any? {
        self.map { $0 as Any }
    }
}
