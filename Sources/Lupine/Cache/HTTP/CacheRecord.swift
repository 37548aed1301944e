import Foundation

/// Everything a cache keeps about one stored response but its body.
struct CacheRecord: Sendable {
    /// Header fields never stored (RFC 9111 §3.1: hop-by-hop and proxy fields). `Set-Cookie` is
    /// stored, as §3.1 requires of every other field: a response served from the cache carries
    /// the cookies it was sent with (the session's jar takes cookies from the network only, so a
    /// hit sets none again), and on disk they sit in files only their owner can read (0600, in a
    /// 0700 directory), as in a cookie jar.
    static let unstoredFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    var primaryKey: String
    /// The request fields the response varies on (``VaryKey/fields(of:)``).
    var varyFields: [String]
    /// The digest of the request's values of `varyFields`.
    var variant: String
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var url: URL
    var requestTime: Date
    var responseTime: Date
    /// Derived from the above; recomputed whenever they change.
    private(set) var freshness: Freshness

    init(primaryKey: String, varyFields: [String], variant: String, status: HTTPResponseStatus, headers: HTTPHeaders, url: URL, requestTime: Date, responseTime: Date) {
        self.primaryKey = primaryKey
        self.varyFields = varyFields
        self.variant = variant
        self.status = status
        self.headers = Self.storable(headers)
        self.url = CacheKey.withoutCredentials(url)
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.freshness = Freshness(status: Int(status.code), headers: self.headers, requestTime: requestTime, responseTime: responseTime)
    }

    /// The file this record's variant is kept in.
    var fileName: String {
        CacheKey.fileName(primary: self.primaryKey, variant: self.variant)
    }

    /// `headers` without the fields a cache does not store, nor those `Connection` names.
    static func storable(_ headers: HTTPHeaders) -> HTTPHeaders {
        let named = Set(headers["Connection"].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        // Built whole: NIO's `add` traps on a non-ASCII name, which a stored or hostile head may have.
        return HTTPHeaders(
            headers.filter { field in
                let lower = field.name.lowercased()
                return !Self.unstoredFields.contains(lower) && !named.contains(lower)
            }.map { ($0.name, $0.value) })
    }

    /// The record after a 304 answered its validation: its header fields updated from the 304's
    /// (RFC 9111 §3.2, §4.3.4) except the fields that describe the stored body's framing.
    func refreshed(with notModified: HTTPHeaders, requestTime: Date, responseTime: Date) -> CacheRecord {
        let framing: Set<String> = ["content-length", "content-encoding", "content-range", "transfer-encoding"]
        let updates = Self.storable(notModified)
        let replaced = Set(updates.map { $0.name.lowercased() }).subtracting(framing)
        let kept = self.headers.filter { !replaced.contains($0.name.lowercased()) }
        let updated = updates.filter { replaced.contains($0.name.lowercased()) }
        let headers = HTTPHeaders((kept + updated).map { ($0.name, $0.value) })
        var record = self
        record.headers = headers
        record.requestTime = requestTime
        record.responseTime = responseTime
        record.freshness = Freshness(status: Int(self.status.code), headers: headers, requestTime: requestTime, responseTime: responseTime)
        return record
    }

    /// The head to deliver at `now`: the stored one with `Age` set to the current age (§5.1).
    func head(at now: Date) -> ResponseHead {
        var headers = self.headers
        let age = self.freshness.currentAge(at: now)
        headers.replaceOrAdd(name: "Age", value: String(Int(min(age, TimeInterval(CacheControl.saturatedSeconds)))))
        return ResponseHead(status: self.status, headers: headers, url: self.url)
    }
}
