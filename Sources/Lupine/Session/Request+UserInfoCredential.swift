import Foundation

extension Request {
    /// The request with the Basic credentials of its URL's user-info moved into `Authorization`
    /// (unless that header is already set) and removed from the URL, so they never appear in a
    /// logged URL or cross a redirect inside one.
    func movingUserInfoCredentialToHeader() -> Request {
        // Runs for every request sent: the common URL without user-info skips URLComponents.
        guard self.url.user != nil || self.url.password != nil, let split = self.url.splittingUserInfo() else { return self }
        var request = self
        request.url = split.url
        if request.value(forHTTPHeaderField: "Authorization") == nil, let user = split.user {
            let credential = Credential(user: user, password: split.password ?? "")
            request.setValue(credential.basicAuthorizationHeader, forHTTPHeaderField: "Authorization")
        }
        return request
    }
}

extension URL {
    /// The URL without its user-info, with the (percent-decoded) user and password it had, or
    /// `nil` when it has none.
    func splittingUserInfo() -> (url: URL, user: String?, password: String?)? {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: true),
            components.user != nil || components.password != nil
        else { return nil }
        let user = components.user
        let password = components.password
        components.user = nil
        components.password = nil
        guard let url = components.url else { return nil }
        return (url, user, password)
    }
}

extension URL {
    /// The URL without user-info (itself when it has none). A URL that `URLComponents` cannot
    /// read (`://user@host.`, found by the resume-data fuzzer) loses the user-info from its text;
    /// one that still has some after that loses everything but its scheme.
    var withoutUserInfo: URL {
        guard self.user != nil || self.password != nil else { return self }
        if let split = self.splittingUserInfo() {
            return split.url
        }
        let text = self.absoluteString
        if let slashes = text.range(of: "//") {
            let authority = text[slashes.upperBound...].prefix { !"/?#".contains($0) }
            if let at = authority.lastIndex(of: "@") {
                let cut = String(text[..<slashes.upperBound]) + String(text[text.index(after: at)...])
                if let url = URL(string: cut), url.user == nil, url.password == nil {
                    return url
                }
            }
        }
        return URL(string: (self.scheme ?? "invalid") + ":") ?? URL(filePath: "/")
    }
}
