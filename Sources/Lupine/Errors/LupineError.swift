import Foundation

/// Every error Lupine reports, with a reason nested per layer and a message a person can act on.
public enum LupineError: Error, Sendable, CustomStringConvertible {
    /// A URL string could not be made into an absolute URL.
    case invalidURL(String)
    /// Parameters could not be encoded into the request.
    case parameterEncodingFailed(ParameterEncodingFailureReason)
    /// A response failed validation; the body, when any, travels with it.
    case responseValidationFailed(ResponseValidationFailureReason)
    /// A response body could not be turned into the requested value.
    case responseSerializationFailed(ResponseSerializationFailureReason)
    /// Too many redirects, or a redirect loop.
    case redirectFailed(RedirectFailureReason)
    /// The task was cancelled.
    case cancelled
    /// The session was invalidated before the task ran.
    case sessionInvalidated
    /// The transport failed (connection, TLS, timeout, protocol).
    case transport(TransportError)
    /// The server's certificate chain (DER, leaf first) was refused by the session's
    /// ``SecurityPolicy`` (or the transport's trust evaluator) for `reason`.
    case serverTrustEvaluationFailed(host: String, reason: String, certificateChain: [[UInt8]])
    /// A pinning ``SecurityPolicy`` was set on an ``HTTPSessionManager`` whose base URL is not `https`.
    case pinningRequiresSecureBaseURL(URL?)
    /// Certificates or keys could not be loaded from `path`.
    case certificateLoadingFailed(path: String, reason: String)

    /// Why parameters could not be encoded.
    public enum ParameterEncodingFailureReason: Sendable {
        /// The value is not representable in JSON; `parameters` describes it.
        case jsonEncodingFailed(parameters: String, reason: String)
        /// The value is not representable in a property list.
        case propertyListEncodingFailed(parameters: String, reason: String)
        /// The custom query-string closure threw.
        case customEncodingFailed(error: any Error)
        /// The method cannot carry the body (multipart with GET or HEAD).
        case methodNotAllowed(String)
    }

    /// Why a response failed validation.
    public enum ResponseValidationFailureReason: Sendable {
        /// The status code is not acceptable.
        case unacceptableStatusCode(code: Int, head: ResponseHead, body: [UInt8])
        /// The content type is not acceptable (or missing while the body is not empty).
        case unacceptableContentType(contentType: String?, acceptable: [String], head: ResponseHead, body: [UInt8])
    }

    /// Why a body could not be turned into a value.
    public enum ResponseSerializationFailureReason: Sendable {
        /// The body is not valid JSON.
        case jsonSerializationFailed(reason: String)
        /// The body is JSON but does not decode into the requested type.
        case decodingFailed(reason: String)
        /// The body could not be decoded with the response's text encoding.
        case stringSerializationFailed(encoding: String)
        /// The body is not a valid XML document.
        case xmlParsingFailed(reason: String)
        /// The body is not a valid property list.
        case propertyListSerializationFailed(reason: String)
        /// The body is empty where a value is required.
        case inputDataNilOrZeroLength
    }

    /// Why a redirect chain was abandoned.
    public enum RedirectFailureReason: Sendable {
        /// More than `limit` redirects.
        case tooManyRedirects(limit: Int)
        /// The chain came back to a URL it had already visited.
        case loop(URL)
    }

    public var description: String {
        switch self {
        case .invalidURL(let string):
            return "\"\(string)\" is not a valid URL."
        case .parameterEncodingFailed(let reason):
            switch reason {
            case .jsonEncodingFailed(let parameters, let why):
                return "The parameters \(parameters) cannot be encoded as JSON: \(why)."
            case .propertyListEncodingFailed(let parameters, let why):
                return "The parameters \(parameters) cannot be encoded as a property list: \(why)."
            case .customEncodingFailed(let error):
                return "The custom query-string serialization failed: \(error)."
            case .methodNotAllowed(let method):
                return "A \(method) request cannot carry a multipart body."
            }
        case .responseValidationFailed(let reason):
            switch reason {
            case .unacceptableStatusCode(let code, let head, _):
                return "Request failed: \(head.status.reasonPhrase.lowercased()) (\(code)) from \(head.url.absoluteString)."
            case .unacceptableContentType(let contentType, let acceptable, _, _):
                return "Request failed: unacceptable content-type \(contentType ?? "(none)"); expected one of \(acceptable.joined(separator: ", "))."
            }
        case .responseSerializationFailed(let reason):
            switch reason {
            case .jsonSerializationFailed(let why):
                return "The response is not valid JSON: \(why)."
            case .decodingFailed(let why):
                return "The response could not be decoded: \(why)."
            case .stringSerializationFailed(let encoding):
                return "The response could not be decoded as \(encoding) text."
            case .xmlParsingFailed(let why):
                return "The response is not valid XML: \(why)."
            case .propertyListSerializationFailed(let why):
                return "The response is not a valid property list: \(why)."
            case .inputDataNilOrZeroLength:
                return "The response body is empty."
            }
        case .redirectFailed(.tooManyRedirects(let limit)):
            return "Stopped after \(limit) redirects."
        case .redirectFailed(.loop(let url)):
            return "The redirects loop back to \(url.absoluteString)."
        case .cancelled:
            return "The request was cancelled."
        case .sessionInvalidated:
            return "The session was invalidated."
        case .transport(let error):
            return error.description
        case .serverTrustEvaluationFailed(let host, let reason, _):
            return "The certificate of \(host) was not trusted: \(reason)."
        case .pinningRequiresSecureBaseURL(let url):
            return "A pinning security policy needs an https base URL; the manager's is \(url?.absoluteString ?? "not set")."
        case .certificateLoadingFailed(let path, let reason):
            return "No certificate could be loaded from \(path): \(reason)."
        }
    }
}
