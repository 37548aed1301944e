import Foundation

/// How a cookie may travel with cross-site requests (RFC 6265bis §4.1.2.7), kept as the server
/// set it. A client library has no notion of the "site for cookies" a browser tab has, so
/// ``CookieStorage`` stores it and hands it back but does not enforce it.
public enum SameSite: String, Sendable {
    /// Only with same-site requests.
    case strict = "Strict"
    /// With same-site requests and top-level navigations.
    case lax = "Lax"
    /// With every request (browsers require `Secure` with it).
    case none = "None"
}

/// One cookie as RFC 6265 §5.3 stores it.
///
/// Two cookies are the same stored cookie when their name, domain and path are equal;
/// ``CookieStorage/setCookie(_:)`` replaces on that identity.
public struct Cookie: Sendable, Equatable, Hashable {
    /// The cookie's name, never empty.
    public var name: String
    /// The cookie's value, possibly empty.
    public var value: String
    /// The host (host-only cookie) or domain (domain cookie) it belongs to: lower-case, no leading dot.
    public var domain: String
    /// The path it is sent under; starts with `/`.
    public var path: String
    /// When it expires; `nil` for a session cookie (RFC 6265's persistent-flag false), which lives
    /// as long as the storage does.
    public var expiresAt: Date?
    /// Whether it goes only to ``domain`` exactly (no `Domain` attribute was set), not to its subdomains.
    public var isHostOnly: Bool
    /// Whether it goes only over a secure connection (see ``CookieStorage`` for what counts as one).
    public var isSecure: Bool
    /// Whether the server asked to hide it from scripts (kept, and written to cookie files).
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute as set, `nil` when absent or not one of the three values.
    public var sameSite: SameSite?
    /// When it was first stored; a replacement keeps the time of the cookie it replaces.
    public var createdAt: Date
    /// When it was last sent or stored.
    public var lastAccessedAt: Date

    /// A cookie; `domain` is lower-cased and loses a leading dot, and `lastAccessedAt` is `createdAt`.
    public init(
        name: String,
        value: String,
        domain: String,
        path: String = "/",
        expiresAt: Date? = nil,
        isHostOnly: Bool = true,
        isSecure: Bool = false,
        isHTTPOnly: Bool = false,
        sameSite: SameSite? = nil,
        createdAt: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = CookieDomain.canonical(domain)
        self.path = path
        self.expiresAt = expiresAt
        self.isHostOnly = isHostOnly
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.createdAt = createdAt
        self.lastAccessedAt = createdAt
    }

    /// Whether it has expired at `now`.
    func isExpired(at now: Date) -> Bool {
        self.expiresAt.map { $0 <= now } ?? false
    }

    /// What makes two cookies the same stored cookie (RFC 6265 §5.3 step 11).
    var identity: Identity {
        Identity(name: self.name, domain: self.domain, path: self.path)
    }

    /// A cookie's name, domain and path.
    struct Identity: Hashable {
        let name: String
        let domain: String
        let path: String
    }
}
