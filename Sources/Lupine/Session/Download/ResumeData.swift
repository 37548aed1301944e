import Foundation

/// What a download needs to continue where it stopped, as `URLSession`'s resume data: the URL,
/// the validator that proves the resource is unchanged (`ETag`, else `Last-Modified`), the bytes
/// already received, and the temporary file holding them.
///
/// Tasks hand it over as opaque bytes (``encoded()``), from
/// ``DownloadTask/cancel(byProducingResumeData:)`` or inside the error of an interrupted
/// download; ``SessionManager/downloadTask(withResumeData:progress:destination:completionHandler:)``
/// continues from them with `Range` and `If-Range`.
public struct ResumeData: Codable, Sendable, Equatable {
    /// The format this version of Lupine writes and reads.
    public static let currentVersion = 1

    /// The format of these resume data.
    public var version: Int
    /// The URL the bytes came from (after redirects): where the rest is asked for. Never with
    /// user-info: credentials are not kept in resume data.
    public var url: URL {
        didSet { self.url = self.url.withoutUserInfo }
    }
    /// The URL the download was started with, when it redirected to ``url``; never with user-info.
    public var originalURL: URL? {
        didSet { self.originalURL = self.originalURL?.withoutUserInfo }
    }
    /// The response's strong `ETag`, if it had one.
    public var entityTag: String?
    /// The response's `Last-Modified`, if it had one.
    public var lastModified: String?
    /// How many bytes of the body the temporary file holds.
    public var bytesReceived: Int
    /// The file holding the bytes received so far.
    public var temporaryFileURL: URL

    /// Creates resume data; for instance for a partial file a previous run left behind.
    public init(url: URL, entityTag: String? = nil, lastModified: String? = nil, bytesReceived: Int, temporaryFileURL: URL) {
        self.version = Self.currentVersion
        self.url = url.withoutUserInfo
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.bytesReceived = bytesReceived
        self.temporaryFileURL = temporaryFileURL
    }

    /// Resume data for a download whose response was `head`: its validator, if it has one
    /// (``validator(of:)``), and the bytes of the body `temporaryFileURL` holds.
    public init(url: URL, response head: ResponseHead, bytesReceived: Int, temporaryFileURL: URL) {
        let validator = Self.validator(of: head)
        self.init(
            url: url,
            entityTag: validator?.entityTag,
            lastModified: validator?.lastModified,
            bytesReceived: bytesReceived,
            temporaryFileURL: temporaryFileURL
        )
    }

    /// Whether a byte range can continue `head`'s body where a file of it stopped: not when the
    /// server refuses ranges (`Accept-Ranges: none`), nor when the body has a `Content-Encoding`
    /// (ranges count the encoded bytes, and the transport decodes content codings).
    public static func isResumable(_ head: ResponseHead) -> Bool {
        let coding = head.headers.first(name: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return head.headers.first(name: "Accept-Ranges")?.lowercased() != "none" && (coding.isEmpty || coding == "identity")
    }

    /// The validator a later `If-Range` can send for `head`'s body: a strong `ETag`, or a
    /// `Last-Modified` that is strong (a second or more before the response's `Date`); `nil` when
    /// the response has neither, or its body cannot be resumed (``isResumable(_:)``).
    public static func validator(of head: ResponseHead) -> (entityTag: String?, lastModified: String?)? {
        guard Self.isResumable(head) else { return nil }
        let entityTag = head.headers.first(name: "ETag").flatMap { $0.hasPrefix("W/") ? nil : $0 }
        let lastModified = head.headers.first(name: "Last-Modified").flatMap {
            HTTPDate.isStrongValidator(lastModified: $0, date: head.headers.first(name: "Date")) ? $0 : nil
        }
        guard entityTag != nil || lastModified != nil else { return nil }
        return (entityTag, lastModified)
    }

    /// Reads resume data produced by ``encoded()``.
    ///
    /// - Throws: ``LupineError/downloadFailed(_:)`` with
    ///   ``LupineError/DownloadFailureReason/resumeDataCorrupt(reason:)`` when the bytes are not
    ///   resume data, or ``LupineError/DownloadFailureReason/resumeDataVersionUnsupported(found:supported:)``
    ///   when another version of Lupine wrote them.
    public init(encoded bytes: [UInt8]) throws(LupineError) {
        struct Envelope: Decodable { let version: Int }
        let data = Data(bytes)
        let version: Int
        do {
            version = try JSONDecoder().decode(Envelope.self, from: data).version
        } catch {
            throw .downloadFailed(.resumeDataCorrupt(reason: error.debugReason))
        }
        guard version == Self.currentVersion else {
            throw .downloadFailed(.resumeDataVersionUnsupported(found: version, supported: Self.currentVersion))
        }
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
            self.url = self.url.withoutUserInfo
            self.originalURL = self.originalURL?.withoutUserInfo
        } catch {
            throw .downloadFailed(.resumeDataCorrupt(reason: error.debugReason))
        }
        guard self.bytesReceived >= 0, self.temporaryFileURL.isFileURL, ["http", "https"].contains(self.url.scheme?.lowercased() ?? "") else {
            throw .downloadFailed(.resumeDataCorrupt(reason: "the resume data's values are out of range"))
        }
    }

    /// The bytes to hand back later.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding plain strings, numbers and URLs cannot fail.
        return (try? Array(encoder.encode(self))) ?? []
    }

    /// The `If-Range` value: the entity tag, else the date; `nil` when there is no validator.
    var ifRange: String? { self.entityTag ?? self.lastModified }

    /// Whether these resume data continue a download of `url` (without user-info, which never
    /// travels in a URL): the URL it was started with or the one it came from, compared as RFC
    /// 3986 §6.2.2–6.2.3 normalises them (scheme and host in any case, a default port written or
    /// not, an empty path as `/`, dot segments resolved, the fragment ignored: it is never sent).
    public func belongs(to url: URL) -> Bool {
        let wanted = Self.normalized(url)
        return [self.url, self.originalURL].contains { $0.map(Self.normalized) == wanted }
    }

    private static func normalized(_ url: URL) -> String? {
        guard var components = URLComponents(url: url.withoutUserInfo.standardized, resolvingAgainstBaseURL: true) else {
            return nil
        }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if (components.scheme == "http" && components.port == 80) || (components.scheme == "https" && components.port == 443) {
            components.port = nil
        }
        if components.percentEncodedPath.isEmpty {
            components.percentEncodedPath = "/"
        }
        components.fragment = nil
        return components.string
    }

    /// Whether the partial file is one a download task made in `directory`: opaque resume data
    /// may only ever write there, not to any file they name.
    func isInside(_ directory: URL) -> Bool {
        let file = self.temporaryFileURL.standardizedFileURL
        return file.deletingLastPathComponent().path == directory.standardizedFileURL.path
            && file.lastPathComponent.hasPrefix(DownloadFile.namePrefix)
            && file.pathExtension == DownloadFile.nameExtension
    }
}
