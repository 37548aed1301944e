/// The few words a metric label or a span's `error.type` names a failure by: the case of the
/// error, and for a transport failure the transport's case (`connectionFailed`, `readTimeout`).
/// Never a URL, a host or a message, so a label's values stay few and hold no credential.
extension LupineError {
    var observedKind: String {
        switch self {
        case .invalidURL: return "invalidURL"
        case .parameterEncodingFailed: return "parameterEncodingFailed"
        case .multipartEncodingFailed: return "multipartEncodingFailed"
        case .responseValidationFailed: return "responseValidationFailed"
        case .responseSerializationFailed: return "responseSerializationFailed"
        case .redirectFailed: return "redirectFailed"
        case .downloadFailed: return "downloadFailed"
        case .cancelled: return "cancelled"
        case .sessionInvalidated: return "sessionInvalidated"
        case .transport(let error): return error.observedKind
        case .serverTrustEvaluationFailed: return "serverTrustEvaluationFailed"
        case .pinningRequiresSecureBaseURL: return "pinningRequiresSecureBaseURL"
        case .certificateLoadingFailed: return "certificateLoadingFailed"
        case .invalidHeader: return "invalidHeader"
        case .requestAdaptationFailed: return "requestAdaptationFailed"
        case .requestRetryFailed: return "requestRetryFailed"
        case .authenticationFailed: return "authenticationFailed"
        case .resourceUnavailable: return "resourceUnavailable"
        case .cachedResponseDamaged: return "cachedResponseDamaged"
        case .cookieFileFailed: return "cookieFileFailed"
        case .cacheDirectoryUnusable: return "cacheDirectoryUnusable"
        case .reachabilityFailed: return "reachabilityFailed"
        case .notConnected: return "notConnected"
        }
    }
}

extension TransportError {
    var observedKind: String {
        switch self {
        case .invalidURL: return "invalidURL"
        case .unsupportedScheme: return "unsupportedScheme"
        case .hostNotFound: return "hostNotFound"
        case .connectionFailed: return "connectionFailed"
        case .connectTimeout: return "connectTimeout"
        case .unixSocketUnusable: return "unixSocketUnusable"
        case .proxyFailed: return "proxyFailed"
        case .proxyConnectionFailed: return "proxyConnectionFailed"
        case .proxyCouldNotReachOrigin: return "proxyCouldNotReachOrigin"
        case .readTimeout: return "readTimeout"
        case .uploadStalledAfterAnswer: return "uploadStalledAfterAnswer"
        case .requestTimeout: return "requestTimeout"
        case .tlsHandshakeFailed: return "tlsHandshakeFailed"
        case .serverTrustRejected: return "serverTrustRejected"
        case .connectionClosedBeforeResponse: return "connectionClosedBeforeResponse"
        case .connectionClosedMidBody: return "connectionClosedMidBody"
        case .connectionClosedMidUpload: return "connectionClosedMidUpload"
        case .invalidResponse: return "invalidResponse"
        case .decompressionLimitExceeded: return "decompressionLimitExceeded"
        case .decompressionFailed: return "decompressionFailed"
        case .requestBodyFailed: return "requestBodyFailed"
        case .requestBodyLengthMismatch: return "requestBodyLengthMismatch"
        case .invalidHeader: return "invalidHeader"
        case .requestNotProcessed: return "requestNotProcessed"
        case .cancelled: return "cancelled"
        case .shutdown: return "shutdown"
        }
    }
}
