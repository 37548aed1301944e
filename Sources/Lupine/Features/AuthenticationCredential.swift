import Foundation

/// A credential an ``Authenticator`` applies to requests and refreshes: an OAuth access token
/// with its refresh token and expiry, for instance.
public protocol AuthenticationCredential: Sendable {
    /// Whether the credential must be refreshed before it is used (it expired, or soon will):
    /// an ``AuthenticationInterceptor`` then refreshes it before sending a request with it.
    var requiresRefresh: Bool { get }
}

/// What an ``AuthenticationInterceptor`` asks of a scheme of authentication: how a credential goes
/// onto a request, how it is refreshed, and how to tell a refused one.
public protocol Authenticator: Sendable {
    /// The credential this authenticator applies and refreshes.
    associatedtype Credential: AuthenticationCredential

    /// Puts `credential` on `request`, typically as its `Authorization` field.
    func apply(_ credential: Credential, to request: inout Request)

    /// A new credential in place of `credential`, from the server that issues them.
    ///
    /// The interceptor runs one refresh at a time however many requests need it, on a Swift task
    /// of its own, and gives up on it after its ``AuthenticationInterceptor/refreshTimeout``
    /// (cancelling it). A throw fails every request that waits for it with
    /// ``LupineError/AuthenticationFailureReason/refreshFailed(underlying:)``.
    func refresh(_ credential: Credential) async throws -> Credential

    /// Whether `request` failed with `response` because its credential was refused, so refreshing
    /// the credential may help. By default: the status is 401.
    func didRequest(_ request: Request, with response: ResponseHead, failDueToAuthenticationError error: LupineError) -> Bool

    /// Whether `request` was sent with `credential` (for instance, its `Authorization` field is
    /// the one ``apply(_:to:)`` writes for it). A refused request that was sent with an older
    /// credential than the interceptor's current one is retried with the current one, without a
    /// refresh.
    func isRequest(_ request: Request, authenticatedWith credential: Credential) -> Bool
}

extension Authenticator {
    public func didRequest(_ request: Request, with response: ResponseHead, failDueToAuthenticationError error: LupineError) -> Bool {
        response.statusCode == 401
    }
}
