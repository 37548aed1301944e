import Hummingbird

/// The type of a header name, reached through `HTTPFields` because Hummingbird re-exports
/// `HTTPFields` but not `HTTPField`.
typealias HTTPFieldName = HTTPFields.Element.Name

extension HTTPFieldName {
    /// The header carrying the server-assigned connection identifier on every response.
    ///
    /// The literal is a valid token, so the failable initializer cannot fail.
    static let lupineConnectionID = HTTPFieldName("X-Lupine-Connection-ID")!

    /// The header naming the protocol a main-listener request came over: `h2` or `http/1.1`.
    static let lupineProtocol = HTTPFieldName("X-Lupine-Protocol")!
}
