import Foundation

extension LupineError {
    /// Why an ``AuthenticationInterceptor`` could not authenticate a request.
    public enum AuthenticationFailureReason: Sendable {
        /// The interceptor has no credential to apply.
        case missingCredential
        /// More refreshes than the interceptor's ``AuthenticationInterceptor/RefreshWindow`` allows: `count` within `interval`.
        case excessiveRefresh(count: Int, interval: Duration)
        /// The authenticator's refresh threw `underlying` (given as thrown).
        case refreshFailed(underlying: any Error)
        /// The authenticator's refresh did not finish within `timeout`.
        case refreshTimedOut(timeout: Duration)
    }

    /// The sentence of an ``AuthenticationFailureReason``; a switch without a default, so a new
    /// reason does not compile until it has one.
    static func describe(_ reason: AuthenticationFailureReason) -> String {
        switch reason {
        case .missingCredential:
            return "the request was not sent: the authentication interceptor has no credential"
        case .excessiveRefresh(let count, let interval):
            return "the credential was refreshed \(count) times within \(interval) and is still refused; giving up"
        case .refreshFailed(let underlying):
            return "the credential could not be refreshed: \(TransportErrorWords.describe(underlying))"
        case .refreshTimedOut(let timeout):
            return "the credential refresh did not finish within \(timeout)"
        }
    }
}
