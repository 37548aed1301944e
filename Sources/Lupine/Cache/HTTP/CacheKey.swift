import Foundation

/// The primary cache key (RFC 9111 §2): the target URI with scheme and host lower-cased, without
/// a default port, its fragment or user information (so credentials in a URL never reach the
/// disk). Only `GET` is stored, so the method is not part of it.
enum CacheKey {
    /// The key of `url`, or `nil` for a URL that is not http or https.
    static func primary(_ url: URL) -> String? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        components.scheme = scheme
        components.fragment = nil
        components.user = nil
        components.password = nil
        components.host = components.host?.lowercased()
        if components.port == (scheme == "https" ? 443 : 80) {
            components.port = nil
        }
        if components.path.isEmpty {
            components.path = "/"
        }
        return components.string
    }

    /// The key of `request`: its URL's, with a `Host` the caller set (the one the transport
    /// sends), which names another target: a virtual host reached by address.
    static func primary(of request: Request) -> String? {
        guard let key = Self.primary(request.url) else { return nil }
        return request.headers.callersHost.map { key + " host=" + $0.lowercased() } ?? key
    }

    /// `url` without user information, as it is kept with a stored response.
    static func withoutCredentials(_ url: URL) -> URL {
        guard url.user != nil || url.password != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        components.user = nil
        components.password = nil
        return components.url ?? url
    }

    /// Whether two URLs have the same origin (scheme, host and port).
    static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        func origin(_ url: URL) -> String? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            let port = url.port ?? (scheme == "https" ? 443 : 80)
            return "\(scheme)://\(host):\(port)"
        }
        guard let left = origin(first) else { return false }
        return left == origin(second)
    }

    /// The file name of the variant `variant` of the key `primary`: hexadecimal digits only.
    static func fileName(primary: String, variant: String) -> String {
        "\(CacheDigest.hex(primary).prefix(32))-\(variant.prefix(32)).lpc"
    }
}

/// The secondary key of a response with `Vary` (RFC 9111 §4.1): the request's values of the
/// listed fields. Names are lower-cased, sorted and deduplicated; a request's values are
/// combined in order, each list member trimmed of whitespace. Kept as a digest.
enum VaryKey {
    /// More fields than this and the response is not stored: a huge `Vary` costs nothing.
    static let maximumFields = 64

    /// The fields `headers`' `Vary` lists; `nil` for `Vary: *` or more than ``maximumFields``.
    static func fields(of headers: HTTPHeaders) -> [String]? {
        var names = Set<String>()
        for line in headers["Vary"] {
            for member in line.split(separator: ",") {
                let name = member.trimmingCharacters(in: .whitespaces).lowercased()
                if name == "*" || names.count > Self.maximumFields { return nil }
                if !name.isEmpty {
                    names.insert(name)
                }
            }
        }
        return names.count > Self.maximumFields ? nil : names.sorted()
    }

    /// The digest of a response without `Vary`.
    private static let noFields = CacheDigest.hex("")

    /// The digest of `request`'s values for `fields` (64 hexadecimal digits).
    static func digest(fields: [String], request: HTTPHeaders) -> String {
        if fields.isEmpty {
            return Self.noFields
        }
        var key = ""
        for name in fields {
            let lines = request[name]
            key += "\(name.utf8.count):\(name)"
            if lines.isEmpty {
                key += "!;"
                continue
            }
            let members = lines.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let value = members.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ",")
            key += "=\(value.utf8.count):\(value);"
        }
        return CacheDigest.hex(key)
    }
}
