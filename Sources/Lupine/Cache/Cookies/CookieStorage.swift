import NIOConcurrencyHelpers
import Foundation

/// A cookie jar by RFC 6265: what AFNetworking's `HTTPShouldHandleCookies` relies on.
///
/// It stores what `Set-Cookie` fields set and gives the cookies a request should carry, and it is
/// safe to use from any thread (one lock, held only for in-memory work). Decisions where the RFCs
/// leave a choice:
/// - A `Set-Cookie` without `=` or with an empty name is ignored (RFC 6265), as is one with a
///   control character other than tab (RFC 6265bis), a name and value longer than 4096 bytes
///   together, or a tab, `;` or control character in its name or value. Other non-ASCII bytes
///   are kept and sent back as they came.
/// - Secure connections are `https` and `wss`, and, as curl decides it, plain `http` to
///   `localhost`, `127.0.0.1` and `::1`: a `Secure` cookie may be set from and is sent to those.
///   A `Secure` cookie from any other `http` origin is ignored (RFC 6265bis), and such an origin
///   cannot replace or shadow a secure cookie either.
/// - `SameSite` is kept but not enforced: a client has no "site for cookies" to compare with.
/// - Over a limit, expired cookies go first, then the least recently used ones.
public final class CookieStorage: Sendable {
    private let jar: NIOLockedValueBox<CookieJar>

    /// An empty jar holding at most `maximumCookiesPerDomain` cookies for one domain and
    /// `maximumCookies` in all (each at least 1).
    public init(maximumCookiesPerDomain: Int = 50, maximumCookies: Int = 3000) {
        self.jar = NIOLockedValueBox(CookieJar(maximumPerDomain: maximumCookiesPerDomain, maximumCount: maximumCookies))
    }

    /// Stores what the `Set-Cookie` field values of a response from `url` set (RFC 6265 §5.2-5.3),
    /// ignoring the ones the RFC says to ignore: bad syntax, a `Domain` for another site or a
    /// public suffix, a `Domain` on an IP-address host, a `Secure` cookie from an insecure origin.
    /// A cookie that has already expired deletes the stored one of its name, domain and path.
    public func storeCookies(fromSetCookieValues values: [String], for url: URL, now: Date = Date()) {
        let cookies = values.compactMap { value in
            SetCookie.parse(value, now: now).flatMap { CookieAdmission.cookie(from: $0, for: url, now: now) }
        }
        guard !cookies.isEmpty else { return }
        self.jar.withLockedValue { jar in
            for cookie in cookies {
                jar.store(cookie, from: url, now: now)
            }
        }
    }

    /// The cookies to send to `url` (§5.4): the host's own host-only cookies and the cookies of the
    /// domains it is in, whose path the request's is inside, secure ones only over a secure
    /// connection, none expired at `now`; the longer path first, then the earlier created.
    /// Their last-access time becomes `now`.
    public func cookies(for url: URL, now: Date = Date()) -> [Cookie] {
        self.jar.withLockedValue { $0.cookies(for: url, now: now) }
    }

    /// The `Cookie` field value for `url` (`a=1; b=2`), or `nil` when no cookie matches.
    public func cookieHeaderValue(for url: URL, now: Date = Date()) -> String? {
        let cookies = self.cookies(for: url, now: now)
        return cookies.isEmpty ? nil : cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores `cookie`, replacing the one of the same name, domain and path (whose creation time it
    /// takes); a `cookie` expired by now only removes that one. A cookie that could not be sent back
    /// (an empty name, a name with `=`, a `;`, tab or control character in its name or value, a
    /// path not starting with `/`, an empty or non-ASCII domain) is not stored. Returns whether it
    /// was stored.
    @discardableResult
    public func setCookie(_ cookie: Cookie) -> Bool {
        var cookie = cookie
        cookie.domain = CookieDomain.canonical(cookie.domain)
        guard CookieAdmission.isWellFormed(cookie) else { return false }
        self.jar.withLockedValue { $0.store(cookie, from: nil, now: Date()) }
        return true
    }

    /// Removes the stored cookie with `cookie`'s name, domain and path, if there is one.
    public func deleteCookie(_ cookie: Cookie) {
        let identity = Cookie.Identity(name: cookie.name, domain: CookieDomain.canonical(cookie.domain), path: cookie.path)
        self.jar.withLockedValue { _ = $0.remove(identity) }
    }

    /// Every stored cookie, sorted by domain, then longer path, then earlier creation. Expired
    /// cookies are included until ``removeExpired(now:)`` or a store that needs the room removes
    /// them (``cookies(for:now:)`` never returns one).
    public var allCookies: [Cookie] {
        self.jar.withLockedValue { $0.all }
    }

    /// Removes every cookie.
    public func removeAll() {
        self.jar.withLockedValue { $0.removeAll() }
    }

    /// Removes the cookies expired at `now`.
    public func removeExpired(now: Date = Date()) {
        self.jar.withLockedValue { $0.removeExpired(now: now) }
    }

    /// Every stored cookie, the latest created first (the order of a cookie file).
    var newestFirst: [Cookie] {
        self.jar.withLockedValue { $0.byCreation.reversed() }
    }

    /// Stores the cookies a cookie file gave `reader`, the earliest created first.
    func merge(_ reader: NetscapeCookieReader, now: Date) {
        self.jar.withLockedValue { jar in
            for cookie in reader.jar.byCreation {
                jar.store(cookie, from: nil, now: now)
            }
        }
    }

    /// A jar with the limits of this one, empty.
    func emptyCopy() -> CookieJar {
        self.jar.withLockedValue { CookieJar(maximumPerDomain: $0.maximumPerDomain, maximumCount: $0.maximumCount) }
    }
}
