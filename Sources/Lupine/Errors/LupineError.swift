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
    /// A ``RequestAdapter`` threw `underlying` (given as thrown): the request was not sent.
    case requestAdaptationFailed(underlying: any Error)
    /// A ``RequestRetrier`` threw `underlying` (not a ``LupineError``, which is reported as
    /// itself), or asked to fail with it, while deciding about the attempt that failed with `original`.
    indirect case requestRetryFailed(underlying: any Error, original: LupineError)
    /// An ``AuthenticationInterceptor`` could not authenticate the request.
    case authenticationFailed(AuthenticationFailureReason)
    /// The request's cache policy allows only a cached response
    /// (``Request/CachePolicy/returnCacheDataDontLoad``), and none was stored: nothing was sent.
    case resourceUnavailable(URL)
    /// A response the disk cache held turned out damaged (torn or changed on disk) as it was read:
    /// the entry was removed, and sending the request again fetches it from the server.
    case cachedResponseDamaged(URL)
    /// A cookie file could not be read or written (``CookieStorage``).
    case cookieFileFailed(CookieFileFailureReason)
    /// An ``HTTPCache``'s directory could not be created, read or written (`reason` says why).
    case cacheDirectoryUnusable(URL, reason: String)
    /// A ``NetworkReachabilityManager`` could not be made or could not watch the network.
    case reachabilityFailed(ReachabilityFailureReason)
    /// The session waits for connectivity (``ConnectivityPolicy/waitsForConnectivity(timeout:)``),
    /// its reachability manager said not reachable, and the network did not come back in `waited`.
    case notConnected(waited: Duration)

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
        /// The body is not an image, or not one that may be accepted.
        case imageSerializationFailed(ImageFailureReason)
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
        /// The finished file could not be moved to its destination (a file is already there and
        /// may not be replaced, a missing folder, permissions, a full disk); the temporary file was
        /// removed if the task had made it.
        case cannotMoveFile(from: URL, to: URL, reason: String)
        /// The destination is something a download never replaces: a directory, a device, a FIFO
        /// or a socket (a symbolic link is followed to what it names); or no place for a file: a
        /// URL that is not a file URL, or one that ends in `/`.
        case destinationNotReplaceable(URL, reason: String)
        /// A `206` answer does not continue where the resume data stopped.
        case unexpectedContentRange(String?)
        /// A resumed download got a success with no byte (a `204`, an empty `200`) instead of the
        /// rest: the bytes already received are kept, not replaced by nothing.
        case emptyAnswerToResume(statusCode: Int, keptBytes: Int)
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
        /// A redirect to this URL would send the request's body again, and the body can be
        /// sent only once (a stream, or a file that cannot tell its length).
        case bodyNotReplayable(URL)
    }

    /// One plain sentence saying what failed and, where it helps, what to do; never a URL's
    /// credentials.
    public var description: String {
        switch self {
        case .invalidURL(let string):
            return "\(MessageText.url(string)) is not a valid URL"
        case .parameterEncodingFailed(let reason):
            switch reason {
            case .jsonEncodingFailed(let parameters, let why):
                return "the parameters \(MessageText.oneLine(parameters)) cannot be encoded as JSON: \(MessageText.oneLine(why))"
            case .propertyListEncodingFailed(let parameters, let why):
                return "the parameters \(MessageText.oneLine(parameters)) cannot be encoded as a property list: \(MessageText.oneLine(why))"
            case .customEncodingFailed(let error):
                return "the custom query-string serialization failed: \(TransportErrorWords.describe(error))"
            case .methodNotAllowed(let method):
                return "a \(MessageText.oneLine(method)) request cannot carry a multipart body"
            case .unsupportedValue(let key, let type):
                return "the parameter \(MessageText.oneLine(key.debugDescription)) is a \(type), which cannot be sent as a query, form or multipart field; convert it to a string first"
            }
        case .multipartEncodingFailed(let reason):
            return Self.describe(reason)
        case .responseValidationFailed(let reason):
            switch reason {
            case .unacceptableStatusCode(let code, let head, _, _):
                return "the server answered \(code) \(head.status.reasonPhrase.lowercased()) for \(MessageText.url(head.url))"
            case .unacceptableContentType(let contentType, let acceptable, _, _):
                let type = contentType.map { "content type \(MessageText.oneLine($0))" } ?? "no content type"
                return "the response has \(type); expected one of \(acceptable.joined(separator: ", "))"
            }
        case .responseSerializationFailed(let reason):
            switch reason {
            case .jsonSerializationFailed(let why):
                return "the response is not valid JSON: \(MessageText.oneLine(why))"
            case .decodingFailed(let why):
                return "the response could not be decoded: \(MessageText.oneLine(why))"
            case .stringSerializationFailed(let encoding):
                return "the response could not be decoded as \(encoding) text"
            case .xmlParsingFailed(let why):
                return "the response is not valid XML: \(MessageText.oneLine(why))"
            case .propertyListSerializationFailed(let why):
                return "the response is not a valid property list: \(MessageText.oneLine(why))"
            case .handlerFailed(let error):
                return "the response handler failed: \(TransportErrorWords.describe(error))"
            case .inputDataNilOrZeroLength:
                return "the response body is empty"
            case .imageSerializationFailed(let image):
                return Self.describe(image)
            }
        case .downloadFailed(let reason):
            return Self.describe(reason)
        case .redirectFailed(.tooManyRedirects(let limit)):
            return "stopped after \(limit) redirects"
        case .redirectFailed(.loop(let url)):
            return "the redirects loop back to \(MessageText.url(url))"
        case .redirectFailed(.invalidLocation(let location)):
            return "the redirect cannot be followed: its Location \(RedirectPolicy.displayed(location)) is not a valid URL"
        case .redirectFailed(.bodyNotReplayable(let url)):
            return "the redirect to \(MessageText.url(url)) cannot be followed: the request body is a stream that can be sent only once; use a body in memory or in a file"
        case .cancelled:
            return "the request was cancelled"
        case .sessionInvalidated:
            return "the session was invalidated"
        case .transport(let error):
            return error.description
        case .serverTrustEvaluationFailed(let host, let reason, _):
            return "the certificate of \(host) is not trusted: \(MessageText.oneLine(reason))"
        case .pinningRequiresSecureBaseURL(let url):
            return "a pinning security policy needs an https base URL; the manager's is \(url.map(MessageText.url) ?? "not set")"
        case .certificateLoadingFailed(let path, let reason):
            return "no certificate could be loaded from \(MessageText.oneLine(path)): \(MessageText.oneLine(reason))"
        case .invalidHeader(let name, let reason):
            return HeaderFieldValidation.message(name: name, reason: reason)
        case .requestAdaptationFailed(let underlying):
            return "the request was not sent: its adapter failed: \(TransportErrorWords.describe(underlying))"
        case .requestRetryFailed(let underlying, let original):
            return "the retrier failed (\(TransportErrorWords.describe(underlying))) after: \(original.description)"
        case .authenticationFailed(let reason):
            return Self.describe(reason)
        case .resourceUnavailable(let url):
            return "no cached response for \(MessageText.url(url)), and the cache policy forbids loading it"
        case .cachedResponseDamaged(let url):
            return "the cached response for \(MessageText.url(url)) is damaged and was removed; send the request again"
        case .cookieFileFailed(let reason):
            return Self.describe(reason)
        case .reachabilityFailed(let reason):
            return Self.describe(reason)
        case .notConnected(let waited):
            return "the network is not reachable and did not come back within \(waited); check the connection and try again"
        case .cacheDirectoryUnusable(let url, let why):
            return "the cache directory \(Self.path(url)) cannot be used: \(MessageText.oneLine(why)); choose a directory you can write to"
        }
    }

    private static func describe(_ reason: MultipartEncodingFailureReason) -> String {
        switch reason {
        case .fileURLInvalid(let url):
            return "the multipart file part \(MessageText.url(url)) is not a file URL"
        case .fileNotFound(let url):
            return "the multipart file part \(Self.path(url)) does not exist"
        case .fileIsDirectory(let url):
            return "the multipart file part \(Self.path(url)) is a directory"
        case .fileNotReadable(let url):
            return "the multipart file part \(Self.path(url)) cannot be read"
        case .fileChangedSize(let url, let expected, let found):
            return "the multipart file part \(Self.path(url)) changed size from \(expected) to \(found) bytes before it was sent"
        case .streamLengthMismatch(let part, let declared, let produced):
            return "the multipart stream part \(MessageText.oneLine(part)) produced \(produced) bytes instead of its declared \(declared)"
        case .requestHasNoMultipartBody:
            return "the request has no multipart body to write"
        case .outputFileWriteFailed(let url, let why):
            return "the multipart body could not be written to \(Self.path(url)): \(MessageText.oneLine(why))"
        }
    }

    private static func describe(_ reason: DownloadFailureReason) -> String {
        switch reason {
        case .resumeDataCorrupt(let why):
            return "the resume data are corrupt: \(MessageText.oneLine(why))"
        case .resumeDataVersionUnsupported(let found, let supported):
            return "the resume data have format \(found); this version of Lupine reads format \(supported)"
        case .resumeDataForAnotherURL(let expected, let found):
            return "the resume data are for \(MessageText.url(found)), not \(MessageText.url(expected))"
        case .temporaryFileMissing(let url):
            return "the partial download \(Self.path(url)) is missing or shorter than the resume data say"
        case .fileWriteFailed(let url, let why):
            return "the download could not be written to \(Self.path(url)): \(MessageText.oneLine(why))"
        case .cannotMoveFile(let from, let to, let why):
            return "the download could not be moved from \(Self.path(from)) to \(Self.path(to)): \(MessageText.oneLine(why))"
        case .destinationNotReplaceable(let url, let why):
            return "the download was not saved: \(Self.path(url)) \(MessageText.oneLine(why)), and only a regular file is ever replaced"
        case .unexpectedContentRange(let range):
            return "the server resumed at the wrong place, Content-Range: \(range.map(MessageText.oneLine) ?? "none")"
        case .emptyAnswerToResume(let status, let kept):
            return "the server answered \(status) with no body instead of the rest of the download; the \(kept) bytes already received are kept"
        case .interrupted(_, let underlying):
            return "the download was interrupted and can be resumed: \(underlying.description)"
        }
    }

    /// A file URL's path on one line.
    private static func path(_ url: URL) -> String {
        MessageText.oneLine(url.path)
    }
}
