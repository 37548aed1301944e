import Foundation

/// Every error Lupine reports, with a reason nested per layer and a message a person can act on.
public enum LupineError: Error, Sendable, CustomStringConvertible {
    /// A URL string could not be made into an absolute URL.
    case invalidURL(String)
    /// Parameters could not be encoded into the request.
    case parameterEncodingFailed(ParameterEncodingFailureReason)
    /// A multipart body could not be built or produced.
    case multipartEncodingFailed(MultipartEncodingFailureReason)
    /// A response failed validation; the body, when any, travels with it.
    case responseValidationFailed(ResponseValidationFailureReason)
    /// A response body could not be turned into the requested value.
    case responseSerializationFailed(ResponseSerializationFailureReason)
    /// Too many redirects, or a redirect loop.
    case redirectFailed(RedirectFailureReason)
    /// A download could not be started, written, resumed or moved to its destination.
    case downloadFailed(DownloadFailureReason)
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
    /// The header field `name` is not allowed by HTTP (RFC 9110): a name that is empty or not a
    /// token, or a value with CR, LF, NUL or another control character but the tab. `reason`
    /// says which; the value is never repeated, as it may be a credential.
    case invalidHeader(name: String, reason: String)

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
        /// The parameter at `key` (`user[tags][]` when nested) is of `type`, which the
        /// query-string rules do not define: only strings, numbers, Booleans, nulls,
        /// dictionaries, arrays and sets, and `Data` in a multipart body.
        case unsupportedValue(key: String, type: String)
    }

    /// Why a multipart body could not be built or produced.
    public enum MultipartEncodingFailureReason: Sendable {
        /// A file part's URL is not a `file:` URL.
        case fileURLInvalid(URL)
        /// A file part's file does not exist.
        case fileNotFound(URL)
        /// A file part's URL names a directory.
        case fileIsDirectory(URL)
        /// A file part's file cannot be read.
        case fileNotReadable(URL)
        /// A file part's file changed size between being appended and being sent.
        case fileChangedSize(URL, expected: Int, found: Int)
        /// A stream part produced other than the length it was appended with.
        case streamLengthMismatch(part: String, declared: Int, produced: Int)
        /// The request given to be written out has no multipart body.
        case requestHasNoMultipartBody
        /// Writing the body to a file failed.
        case outputFileWriteFailed(URL, reason: String)
    }

    /// Why a response failed validation.
    public enum ResponseValidationFailureReason: Sendable {
        /// The status code is not acceptable; when the content type is not acceptable either,
        /// `underlying` is that failure (as AFNetworking's underlying error), else `nil`.
        indirect case unacceptableStatusCode(code: Int, head: ResponseHead, body: [UInt8], underlying: LupineError?)
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
        /// A handler given the response as it streamed (``SessionManager/stream(_:receiveHead:receiveChunk:)``)
        /// threw this error.
        case handlerFailed(any Error)
    }

    /// Why a download failed.
    public enum DownloadFailureReason: Sendable {
        /// The resume data are not resume data (truncated, edited, or something else entirely).
        case resumeDataCorrupt(reason: String)
        /// The resume data were written by another version of Lupine.
        case resumeDataVersionUnsupported(found: Int, supported: Int)
        /// The resume data belong to another URL than the request's.
        case resumeDataForAnotherURL(expected: URL, found: URL)
        /// The resume data's temporary file is gone, or holds fewer bytes than they claim.
        case temporaryFileMissing(URL)
        /// The body could not be written to the file (a full disk, a file size limit).
        case fileWriteFailed(URL, reason: String)
        /// The finished file could not be moved to its destination; the temporary file was removed.
        case cannotMoveFile(from: URL, to: URL, reason: String)
        /// The destination is something a download never replaces: a directory, a device, a FIFO
        /// or a socket (a symbolic link is followed to what it names).
        case destinationNotReplaceable(URL, reason: String)
        /// A `206` answer does not continue where the resume data stopped.
        case unexpectedContentRange(String?)
        /// The transfer stopped partway; the resume data continue it.
        indirect case interrupted(resumeData: [UInt8], underlying: LupineError)
    }

    /// Why a redirect chain was abandoned.
    public enum RedirectFailureReason: Sendable {
        /// More than `limit` redirects.
        case tooManyRedirects(limit: Int)
        /// The chain came back to a URL it had already visited.
        case loop(URL)
        /// A redirect's `Location` header, given here as sent, is not a URL (relative or
        /// absolute) with a scheme and a host.
        case invalidLocation(String)
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
            case .unsupportedValue(let key, let type):
                return "The parameter \(key.debugDescription) is a \(type), which cannot be sent as a query, form or multipart field; convert it to a string first."
            }
        case .multipartEncodingFailed(let reason):
            return Self.describe(reason)
        case .responseValidationFailed(let reason):
            switch reason {
            case .unacceptableStatusCode(let code, let head, _, _):
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
            case .handlerFailed(let error):
                return "The response handler failed: \(error)"
            case .inputDataNilOrZeroLength:
                return "The response body is empty."
            }
        case .downloadFailed(let reason):
            return Self.describe(reason)
        case .redirectFailed(.tooManyRedirects(let limit)):
            return "Stopped after \(limit) redirects."
        case .redirectFailed(.loop(let url)):
            return "The redirects loop back to \(url.absoluteString)."
        case .redirectFailed(.invalidLocation(let location)):
            return "The redirect cannot be followed: its Location \(RedirectPolicy.displayed(location)) is not a valid URL."
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
        case .invalidHeader(let name, let reason):
            return HeaderFieldValidation.message(name: name, reason: reason)
        }
    }

    private static func describe(_ reason: MultipartEncodingFailureReason) -> String {
        switch reason {
        case .fileURLInvalid(let url):
            return "The multipart file part \(url.absoluteString) is not a file URL."
        case .fileNotFound(let url):
            return "The multipart file part \(url.path) does not exist."
        case .fileIsDirectory(let url):
            return "The multipart file part \(url.path) is a directory."
        case .fileNotReadable(let url):
            return "The multipart file part \(url.path) cannot be read."
        case .fileChangedSize(let url, let expected, let found):
            return "The multipart file part \(url.path) changed size from \(expected) to \(found) bytes before it was sent."
        case .streamLengthMismatch(let part, let declared, let produced):
            return "The multipart stream part \"\(part)\" produced \(produced) bytes instead of its declared \(declared)."
        case .requestHasNoMultipartBody:
            return "The request has no multipart body to write."
        case .outputFileWriteFailed(let url, let why):
            return "The multipart body could not be written to \(url.path): \(why)."
        }
    }

    private static func describe(_ reason: DownloadFailureReason) -> String {
        switch reason {
        case .resumeDataCorrupt(let why):
            return "The resume data are corrupt: \(why)."
        case .resumeDataVersionUnsupported(let found, let supported):
            return "The resume data have format \(found); this version of Lupine reads format \(supported)."
        case .resumeDataForAnotherURL(let expected, let found):
            return "The resume data are for \(found.absoluteString), not \(expected.absoluteString)."
        case .temporaryFileMissing(let url):
            return "The partial download \(url.path) is missing or shorter than the resume data say."
        case .fileWriteFailed(let url, let why):
            return "The download could not be written to \(url.path): \(why)."
        case .cannotMoveFile(let from, let to, let why):
            return "The download could not be moved from \(from.path) to \(to.path): \(why)."
        case .destinationNotReplaceable(let url, let why):
            return "The download was not saved: \(url.path) \(why), and only a regular file is ever replaced."
        case .unexpectedContentRange(let range):
            return "The server resumed at the wrong place (Content-Range: \(range ?? "none"))."
        case .interrupted(_, let underlying):
            return "The download was interrupted and can be resumed: \(underlying.description)"
        }
    }
}
