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

    /// The sentences of the errors the request pipeline's extension points produce.
    var pipelineDescription: String {
        switch self {
        case .requestAdaptationFailed(let underlying):
            return "the request was not sent: its adapter failed: \(TransportErrorWords.describe(underlying))"
        case .requestRetryFailed(let underlying, let original):
            return "the retrier failed (\(TransportErrorWords.describe(underlying))) after: \(original.description)"
        case .authenticationFailed(.missingCredential):
            return "the request was not sent: the authentication interceptor has no credential"
        case .authenticationFailed(.excessiveRefresh(let count, let interval)):
            return "the credential was refreshed \(count) times within \(interval) and is still refused; giving up"
        case .authenticationFailed(.refreshFailed(let underlying)):
            return "the credential could not be refreshed: \(TransportErrorWords.describe(underlying))"
        case .authenticationFailed(.refreshTimedOut(let timeout)):
            return "the credential refresh did not finish within \(timeout)"
        case .resourceUnavailable(let url):
            return "no cached response for \(MessageText.url(url)), and the cache policy forbids loading it"
        default:
            return self.description
        }
    }
}
