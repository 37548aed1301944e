import Foundation

/// How a redirect response turns into the next request, following RFC 9110 §15.4 as browsers
/// apply it: 301 and 302 turn POST into GET, 303 turns anything but HEAD into GET, both without a
/// body; 307 and 308 keep method and body. Credentials, cookies and a `Host` the caller set never
/// cross to another origin.
enum RedirectPolicy {
    /// The status codes that are redirects Lupine follows.
    static let redirectStatusCodes: Set<Int> = [301, 302, 303, 307, 308]

    /// Headers dropped when a redirect changes scheme, host or port.
    static let originBoundHeaders = ["Authorization", "Cookie", "Proxy-Authorization", "Host"]

    /// The request to send for a redirect `head` answering `request`, or `nil` when the response
    /// is not a redirect Lupine follows (another status, or no `Location`, as a 300 or a 304 may
    /// have).
    ///
    /// - Throws: ``LupineError/RedirectFailureReason/invalidLocation(_:)`` when the `Location`
    ///   is not a URL, relative or absolute, that resolves to one with a scheme and a host.
    static func redirectedRequest(for request: Request, head: ResponseHead) throws(LupineError) -> Request? {
        guard Self.redirectStatusCodes.contains(head.statusCode),
            let location = head.headers.first(name: "Location")
        else { return nil }
        guard let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
            target.scheme != nil,
            let host = target.host, !host.isEmpty
        else { throw .redirectFailed(.invalidLocation(location)) }

        var next = request
        next.url = target
        let changesMethod: Bool
        switch head.statusCode {
        case 301, 302: changesMethod = request.method == .POST
        case 303: changesMethod = request.method != .HEAD
        default: changesMethod = false
        }
        if changesMethod {
            next.method = .GET
            next.body = .none
            for header in ["Content-Type", "Content-Length", "Transfer-Encoding"] {
                next.headers.remove(name: header)
            }
        }
        if !Self.sameOrigin(request.url, target) {
            for header in Self.originBoundHeaders {
                next.headers.remove(name: header)
            }
        }
        return next
    }

    /// `location` for a message: quoted with non-printable characters escaped, any user
    /// information before an `@` hidden, and cut after 200 characters.
    static func displayed(_ location: String) -> String {
        var shown = location
        if let start = shown.range(of: "://")?.upperBound,
            let at = shown[start...].prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" }).lastIndex(of: "@")
        {
            shown.replaceSubrange(start..<at, with: "…")
        }
        let limit = 200
        return (shown.count > limit ? String(shown.prefix(limit)) + "…" : shown).debugDescription
    }

    /// Whether two URLs share scheme, host and port.
    static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
            && lhs.host?.lowercased() == rhs.host?.lowercased()
            && Self.effectivePort(lhs) == Self.effectivePort(rhs)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
