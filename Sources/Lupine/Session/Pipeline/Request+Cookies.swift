extension Request {
    /// The request with the cookies `jar` holds for its URL added to its `Cookie` field, after
    /// any the caller set (RFC 6265 §5.4: one `Cookie` field).
    func addingCookies(from jar: CookieStorage) -> Request {
        guard let stored = jar.cookieHeaderValue(for: self.url) else { return self }
        var request = self
        let own = request.headers["Cookie"].joined(separator: "; ")
        request.headers.replaceOrAdd(name: "Cookie", value: own.isEmpty ? stored : "\(own); \(stored)")
        return request
    }
}
