/// A type with a value that stands for an empty body, so that ``DecodableResponseSerializer``
/// can produce it for a `204 No Content`, a `205 Reset Content` or a `HEAD` response.
public protocol EmptyResponse {
    /// The value an empty body decodes to.
    static func emptyValue() -> Self
}

/// The value of a response that has no body worth decoding: decode into `Empty` when only
/// success matters. Decodes from an empty body where one is allowed, and from `{}`.
public struct Empty: Codable, Sendable, Hashable, EmptyResponse {
    /// The only value.
    public static let value = Empty()

    /// Creates the value.
    public init() {}

    /// ``value``.
    public static func emptyValue() -> Empty { value }
}
