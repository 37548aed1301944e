import Foundation
import NIOConcurrencyHelpers

/// A ``SessionManager`` for an HTTP API, as AFNetworking's `AFHTTPSessionManager`: a base URL,
/// a request serializer, and the HTTP verbs in two styles — AFNetworking's closures and
/// `async throws`.
///
/// `@unchecked Sendable`: the request serializer lives in a lock box; `baseURL` is immutable.
open class HTTPSessionManager: SessionManager, @unchecked Sendable {
    /// The URL relative request strings resolve against; a path without a trailing `/` gets one.
    public let baseURL: URL?
    private let serializer: NIOLockedValueBox<any RequestSerializer> = NIOLockedValueBox(HTTPRequestSerializer())

    /// Creates a manager for `baseURL` on `transport` (by default the shared transport).
    public init(baseURL: URL? = nil, transport: any Transport = NIOTransport.shared) {
        self.baseURL = baseURL.map(Self.withTrailingSlash)
        super.init(transport: transport)
    }

    /// Creates a manager for `baseURL` with a transport of its own.
    public init(baseURL: URL? = nil, configuration: TransportConfiguration) {
        self.baseURL = baseURL.map(Self.withTrailingSlash)
        super.init(configuration: configuration)
    }

    /// Builds requests from URL strings and parameters (default ``HTTPRequestSerializer``).
    public var requestSerializer: any RequestSerializer {
        get { self.serializer.withLockedValue { $0 } }
        set { self.serializer.withLockedValue { $0 = newValue } }
    }

    /// Sets ``SessionManager/securityPolicy``, as AFNetworking's `setSecurityPolicy:`.
    ///
    /// - Throws: ``LupineError/pinningRequiresSecureBaseURL(_:)`` when `policy` pins certificates
    ///   or keys and ``baseURL`` is not an `https` URL: pinning only means something over TLS.
    open override func setSecurityPolicy(_ policy: SecurityPolicy) throws {
        if policy.pinningMode != .none && self.baseURL?.scheme?.lowercased() != "https" {
            throw LupineError.pinningRequiresSecureBaseURL(self.baseURL)
        }
        try super.setSecurityPolicy(policy)
    }

    /// Builds the request for `method`, `urlString` (relative to ``baseURL``), `parameters` and extra `headers`.
    public func makeRequest(
        _ method: HTTPMethod,
        _ urlString: String,
        parameters: [String: any Sendable]?,
        headers: [String: String]?
    ) throws -> Request {
        let request = try self.requestSerializer.request(
            method: method,
            urlString: urlString,
            relativeTo: self.baseURL,
            parameters: parameters
        )
        return Self.adding(headers, to: request)
    }

    /// Builds a `POST` with a `multipart/form-data` body for `urlString` (relative to ``baseURL``):
    /// `parameters` as form fields, then the parts `constructingBody` appends, and extra `headers`.
    public func makeMultipartRequest(
        _ urlString: String,
        parameters: [String: any Sendable]?,
        headers: [String: String]?,
        constructingBody: (inout MultipartFormData) throws -> Void
    ) throws -> Request {
        let request = try self.requestSerializer.multipartFormRequest(
            method: .POST,
            urlString: urlString,
            relativeTo: self.baseURL,
            parameters: parameters,
            constructingBody: constructingBody
        )
        return Self.adding(headers, to: request)
    }

    private static func adding(_ headers: [String: String]?, to request: Request) -> Request {
        var request = request
        for (name, value) in (headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    /// AFNetworking's rule: a base URL with a path gets a trailing `/`, so relative paths append to it.
    private static func withTrailingSlash(_ url: URL) -> URL {
        guard !url.path.isEmpty, !url.absoluteString.hasSuffix("/") else { return url }
        return URL(string: url.absoluteString + "/") ?? url
    }
}
