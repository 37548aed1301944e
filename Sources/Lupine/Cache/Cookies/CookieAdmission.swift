import Foundation

/// Which cookies may enter a jar: RFC 6265 §5.3's judgement of a `Set-Cookie` against the
/// request that brought it, and the shape every stored cookie must have so that it can be sent
/// back in a `Cookie` field and written to a cookie file.
enum CookieAdmission {
    /// The cookie `setCookie` makes for a response from `url` at `now`, or `nil` when it is to be
    /// ignored: no cookie-bearing host, `Secure` from an insecure origin (RFC 6265bis), a `Domain`
    /// that is not ASCII, that the host does not domain-match, or that is a public suffix or an IP
    /// address other than the host itself, any `Domain` but the address itself for an IP-address host, a
    /// `__Secure-` or `__Host-` name without what its prefix promises (RFC 6265bis §4.1.3).
    static func cookie(from setCookie: SetCookie, for url: URL, now: Date) -> Cookie? {
        guard let host = CookieDomain.host(of: url) else { return nil }
        if setCookie.isSecure && !CookieDomain.isSecureContext(url) {
            return nil
        }
        var domain = host
        var isHostOnly = true
        // A Domain naming the host itself when that is a public suffix or an address makes a
        // host-only cookie (§5.3 step 5); any other Domain a domain cookie, if the host matches it.
        if let attribute = setCookie.domain,
            attribute != host || !(PublicSuffixes.contains(host) || CookieDomain.isIPAddress(host))
        {
            guard attribute.utf8.allSatisfy({ $0 < 0x80 }), !CookieDomain.isIPAddress(host), !CookieDomain.isIPAddress(attribute),
                !PublicSuffixes.contains(attribute), CookieDomain.matches(host, domain: attribute)
            else { return nil }
            domain = attribute
            isHostOnly = false
        }
        let path = setCookie.path ?? Self.defaultPath(of: url)
        let name = setCookie.name.lowercased()
        if name.hasPrefix("__secure-") && !setCookie.isSecure {
            return nil
        }
        if name.hasPrefix("__host-") && !(setCookie.isSecure && isHostOnly && setCookie.path == "/") {
            return nil
        }
        let cookie = Cookie(
            name: setCookie.name, value: setCookie.value, domain: domain, path: path,
            expiresAt: setCookie.expiresAt, isHostOnly: isHostOnly, isSecure: setCookie.isSecure,
            isHTTPOnly: setCookie.isHTTPOnly, sameSite: setCookie.sameSite, createdAt: now
        )
        return Self.isWellFormed(cookie) ? cookie : nil
    }

    /// Whether `cookie` can be stored: a non-empty name without `=`, a name and value of at most
    /// 4096 bytes together, neither holding `;` nor a control character (tab included, so a cookie
    /// file's TAB-separated line can hold it); a path starting with `/`, of at most 1024 bytes,
    /// without `;` or control characters (a longer default path from a long URL is refused, as a
    /// longer `Path` attribute is); a domain of at most 255 characters a host name can have
    /// (letters, digits, `-._~%!$&'()*+,=:`); an expiry that is a number.
    static func isWellFormed(_ cookie: Cookie) -> Bool {
        let isControl: (Unicode.Scalar) -> Bool = { $0.properties.generalCategory == .control }
        let nameAndValue = (cookie.name + cookie.value).unicodeScalars
        guard !cookie.name.isEmpty, !cookie.name.contains("="),
            cookie.name.utf8.count + cookie.value.utf8.count <= SetCookie.maximumNameValueBytes,
            !nameAndValue.contains(where: { $0 == ";" || isControl($0) }),
            cookie.path.hasPrefix("/"), cookie.path.utf8.count <= SetCookie.maximumAttributeValueBytes,
            !cookie.path.unicodeScalars.contains(where: { $0 == ";" || isControl($0) }),
            cookie.expiresAt?.timeIntervalSince1970.isNaN != true
        else { return false }
        let hostSymbols = Set("-._~%!$&'()*+,=:".utf8)
        // A domain keeps no leading dot and has no empty label: `..com` from a cookie file lost
        // one dot and came back from a write and a read as another domain (found by the fuzzer).
        guard !cookie.domain.hasPrefix("."), !cookie.domain.contains("..") else { return false }
        return (1...255).contains(cookie.domain.utf8.count)
            && cookie.domain.utf8.allSatisfy { byte in
                hostSymbols.contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
    }

    /// §5.1.4's default-path of `url`: its path up to, not including, its last `/`, or `/` when
    /// that leaves nothing or the path does not start with `/`.
    static func defaultPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }

    /// §5.1.4: whether a request for `requestPath` may carry a cookie whose path is `cookiePath`.
    static func pathMatches(_ requestPath: String, cookiePath: String) -> Bool {
        guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }
        return requestPath.utf8.count == cookiePath.utf8.count || cookiePath.hasSuffix("/")
            || requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// The path of `url` as §5.4 compares it: `/` when empty.
    static func requestPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }
}
