import Foundation

extension Request {
    /// The request with the cookies `jar` holds for its URL added to its `Cookie` field, after
    /// any the caller set (RFC 6265 §5.4: one `Cookie` field).
    func addingCookies(from jar: CookieStorage) -> Request {
        guard let stored = jar.cookieHeaderValue(for: self.cookieURL) else { return self }
        var request = self
        let own = request.headers["Cookie"].joined(separator: "; ")
        request.headers.replaceOrAdd(name: "Cookie", value: own.isEmpty ? stored : "\(own); \(stored)")
        return request
    }

    /// The URL whose cookies the request carries, and under which its answer's cookies are kept:
    /// its own, with the host of a `Host` field the caller set in place of the URL's, as curl
    /// does, so that virtual hosts reached at one address keep their cookies apart.
    var cookieURL: URL {
        guard let host = self.headers.callersHost.flatMap(Self.hostName(ofHostField:)),
            var components = URLComponents(url: self.url, resolvingAgainstBaseURL: false)
        else { return self.url }
        if host.contains(":") {
            components.percentEncodedHost = "[\(host)]"
        } else {
            components.host = host
        }
        return components.url ?? self.url
    }

    /// The name in a `Host` field's value (`name`, `name:port`, `[v6]` or `[v6]:port`), lower
    /// case; `nil` when there is none.
    private static func hostName(ofHostField value: String) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let name: Substring
        if trimmed.hasPrefix("["), let close = trimmed.firstIndex(of: "]") {
            name = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
        } else {
            name = trimmed.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }
        return name.isEmpty ? nil : name.lowercased()
    }
}
