import Foundation

/// How a redirect response turns into the next request, following RFC 9110 §15.4 as browsers
/// apply it: 301 and 302 turn POST into GET, 303 turns anything but HEAD into GET, both without a
/// body; 307 and 308 keep method and body. Credentials and cookies never cross to another origin.
enum RedirectPolicy {
    /// The status codes that are redirects Lupine follows.
    static let redirectStatusCodes: Set<Int> = [301, 302, 303, 307, 308]

    /// Headers dropped when a redirect changes scheme, host or port.
    static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The request to send for a redirect `head` answering `request`, or `nil` when the response
    /// is not a redirect Lupine follows (no `Location`, or an unparsable one).
    static func redirectedRequest(for request: Request, head: ResponseHead) -> Request? {
        guard Self.redirectStatusCodes.contains(head.statusCode),
            let location = head.headers.first(name: "Location"),
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL
        else { return nil }

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
            for header in Self.credentialHeaders {
                next.headers.remove(name: header)
            }
        }
        return next
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
