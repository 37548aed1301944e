/// A JSON `null` in the values ``JSONResponseSerializer`` produces.
///
/// Foundation's `NSNull` is a class and not `Sendable`, so parsed JSON carries this marker in its
/// place: `{"a": null}` becomes `["a": JSONNull()]`. Test for it with `value is JSONNull`.
/// ``JSONResponseSerializer/removesKeysWithNullValues`` drops it from objects and arrays.
public struct JSONNull: Sendable, Hashable, CustomStringConvertible {
    /// Creates the marker.
    public init() {}

    /// `null`.
    public var description: String { "null" }
}
