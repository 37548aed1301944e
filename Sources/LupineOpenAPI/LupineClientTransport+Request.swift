import Foundation
import HTTPTypes
import Lupine
import OpenAPIRuntime

/// Turning what a generated client sends into a Lupine `Request`.
extension LupineClientTransport {
    /// The Lupine request for `request` and `body` sent to `baseURL`, with the manager's timeout,
    /// cache policy, cookie handling and the default header fields the request lacks.
    ///
    /// - Throws: `LupineError.invalidURL(_:)`, `LupineError.invalidHeader(name:reason:)`, and
    ///   what reading a buffered body throws, as `LupineError`.
    func makeRequest(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL) async throws(LupineError) -> Lupine.Request {
        let defaults = self.manager.requestSerializer.base
        let requested = try Self.headers(of: request.headerFields)
        var headers = requested
        for (name, value) in defaults.httpRequestHeaders where !requested.contains(name: name) {
            // As a block, which NIO stores without trapping on a name beyond ASCII (a caller's
            // `setValue` on the serializer); the transport refuses such a name before sending.
            headers.add(contentsOf: HTTPHeaders([(name, value)]))
        }
        // The body's framing is Lupine's to write, from the body itself: a `Content-Length` beside
        // a chunked body would make two framings. One the request gives stands for the length of
        // a body that does not know its own; a `Content-Length: 0` without a body agrees with it,
        // and stays (curl sends it).
        let declaredLength = headers.first(name: "Content-Length").flatMap(Self.length(declaredBy:))
        headers.remove(name: "Content-Length")
        headers.remove(name: "Transfer-Encoding")
        if body == nil, declaredLength == 0 {
            headers.add(name: "Content-Length", value: "0")
        }
        var lupineRequest = Lupine.Request(
            url: try Self.url(for: request, baseURL: baseURL),
            method: HTTPMethod(rawValue: request.method.rawValue),
            headers: headers,
            body: try await self.requestBody(body, declaredLength: declaredLength),
            timeoutInterval: defaults.timeoutInterval,
            cachePolicy: defaults.cachePolicy
        )
        lupineRequest.httpShouldHandleCookies = defaults.httpShouldHandleCookies
        return lupineRequest
    }

    /// `baseURL` followed by the request's path and query (both already percent-encoded by the
    /// client), as swift-openapi-runtime's transports join them.
    static func url(for request: HTTPRequest, baseURL: URL) throws(LupineError) -> URL {
        let path = request.path ?? ""
        // The path is read after an authority, so that one starting with `//` (an empty path
        // parameter first in its template) stays a path instead of naming a host.
        let rooted = path.hasPrefix("/") ? path : "/" + path
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
            let requested = URLComponents(string: "http://base" + rooted)
        else {
            throw LupineError.invalidURL(baseURL.absoluteString + path)
        }
        let requestedPath = path.hasPrefix("/") ? requested.percentEncodedPath : String(requested.percentEncodedPath.dropFirst())
        var basePath = components.percentEncodedPath
        if basePath.hasSuffix("/") && requestedPath.hasPrefix("/") {
            basePath.removeLast()
        }
        components.percentEncodedPath = basePath + requestedPath
        components.percentEncodedQuery = requested.percentEncodedQuery
        guard let url = components.url, url.host?.isEmpty == false else {
            throw LupineError.invalidURL(baseURL.absoluteString + path)
        }
        return url
    }

    /// The header fields in order, a name given several times kept as several fields.
    ///
    /// - Throws: `LupineError.invalidHeader(name:reason:)` for a value with a byte beyond
    ///   ASCII: `HTTPField` allows such bytes (obsolete in RFC 9110), but they have no one
    ///   meaning, so none is sent rather than some guess of one.
    static func headers(of fields: HTTPFields) throws(LupineError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count)
        for field in fields {
            let isASCII = field.withUnsafeBytesOfValue { bytes in bytes.allSatisfy { $0 < 0x80 } }
            guard isASCII else {
                throw LupineError.invalidHeader(name: field.name.rawName, reason: "the value has a character beyond ASCII")
            }
            // A field name is a token, so ASCII, which NIO's `add` requires.
            headers.add(name: field.name.rawName, value: field.value)
        }
        return headers
    }

    /// The body as Lupine sends it: bytes when it is small, known and can be read again (so the
    /// session may send it more than once), a stream read as the socket takes it otherwise, of
    /// the body's own length, else of `declaredLength`, else chunked.
    ///
    /// - Throws: what ``bytes(of:length:)`` throws for a buffered body.
    private func requestBody(_ body: HTTPBody?, declaredLength: Int?) async throws(LupineError) -> Lupine.Request.Body {
        guard let body else {
            return .none
        }
        guard case .known(let known) = body.length, let length = Int(exactly: known), length >= 0 else {
            return .stream(length: declaredLength) { RequestBodyReader.chunks(of: body) }
        }
        guard body.iterationBehavior == .multiple, length <= self.maximumBufferedRequestBodyLength else {
            return .stream(length: length) { RequestBodyReader.chunks(of: body) }
        }
        return .bytes(try await Self.bytes(of: body, length: length))
    }

    /// The bytes of `body`, which says it has `length` of them.
    ///
    /// - Throws: `TransportError.requestBodyLengthMismatch(declared:produced:)` for a body with
    ///   fewer bytes or more (counted to the chunk that goes past), as when it streams; what
    ///   reading it throws, as `LupineError`.
    private static func bytes(of body: HTTPBody, length: Int) async throws(LupineError) -> [UInt8] {
        var bytes: [UInt8] = []
        // The length is the body's word: memory grows with what it produces, not with that.
        bytes.reserveCapacity(min(length, 64 * 1024))
        do {
            for try await chunk in body {
                let produced = bytes.count + chunk.count
                guard produced <= length else {
                    throw LupineError.transport(.requestBodyLengthMismatch(declared: length, produced: produced))
                }
                bytes.append(contentsOf: chunk)
            }
        } catch let error as LupineError {
            throw error
        } catch {
            throw error is CancellationError ? .cancelled : .transport(.requestBodyFailed(underlying: error))
        }
        if Task.isCancelled {
            throw .cancelled
        }
        guard bytes.count == length else {
            throw .transport(.requestBodyLengthMismatch(declared: length, produced: bytes.count))
        }
        return bytes
    }

    /// The length a `Content-Length` value gives: digits only, as RFC 9110 has it.
    private static func length(declaredBy value: String) -> Int? {
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(value)
    }
}
