import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Request {
    /// The request with the cookies `jar` holds for its ``cookieURL`` added to its `Cookie`
    /// field, after any the caller set (RFC 6265 §5.4: one `Cookie` field).
    func addingCookies(from jar: CookieStorage) -> Request {
        guard let url = self.cookieURL, let stored = jar.cookieHeaderValue(for: url) else { return self }
        var request = self
        let own = request.headers["Cookie"].joined(separator: "; ")
        request.headers.replaceOrAdd(name: "Cookie", value: own.isEmpty ? stored : "\(own); \(stored)")
        return request
    }

    /// The URL whose cookies the request carries, and under which its answer's cookies are kept:
    /// its own, with the host of a `Host` field the caller set in place of the URL's, as curl
    /// does, so that virtual hosts reached at one address keep their cookies apart. `nil` (no
    /// cookie goes, none is kept) for a `Host` that names no host a URL can hold as it is
    /// written: neither another name's cookies nor the address's go to such a virtual host.
    var cookieURL: URL? {
        guard let field = self.headers.callersHost else { return self.url }
        guard let host = Self.hostName(ofHostField: field), var components = URLComponents(url: self.url, resolvingAgainstBaseURL: false)
        else { return nil }
        // Checked below: an IPv6 address, or letters, digits, `-`, `_` and dots, which a URL
        // holds unchanged (Foundation traps on an invalid percent-encoded host).
        if host.contains(":") {
            components.percentEncodedHost = "[\(host)]"
        } else {
            components.percentEncodedHost = host
        }
        return components.url
    }

    /// The name in a `Host` field's value (`name`, `name:port`, `[v6]` or `[v6]:port`), lower
    /// case, when it is an IPv6 address or labels of ASCII letters, digits, `-` and `_` between
    /// dots (a final dot allowed); `nil` otherwise.
    private static func hostName(ofHostField value: String) -> String? {
        let text = value.trimmingCharacters(in: .whitespaces)
        let isPort = { (port: Substring) in port.allSatisfy { $0.isASCII && $0.isNumber } }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let address = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && isPort(rest.dropFirst())) else { return nil }
            var parsed = in6_addr()
            return inet_pton(AF_INET6, address, &parsed) == 1 ? address.lowercased() : nil
        }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = parts.first, parts.count == 1 || isPort(parts[1]) else { return nil }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid = labels.enumerated().allSatisfy { index, label in
            (index == labels.count - 1 && index > 0 && label.isEmpty)
                || (!label.isEmpty && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
        return valid ? name.lowercased() : nil
    }
}
