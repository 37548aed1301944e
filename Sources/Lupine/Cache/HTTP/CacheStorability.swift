import Foundation

/// Whether a response may be stored (RFC 9111 §3), and the record to store it under.
enum CacheStorability {
    /// The record for storing `response` to `request`, or `nil` when it must not be stored:
    /// - the request is not a plain `GET` (no body, no `Range`), or its URL is not http(s);
    /// - the status is 206 (partial content is not stored), 304, or not final;
    /// - `no-store` on the request, or on the response without `must-understand`;
    /// - `must-understand` with a status whose caching rules this cache does not know (§5.2.2.3:
    ///   with one it knows, the response's `no-store` is ignored);
    /// - `Vary: *`, or a `Vary` of more than ``VaryKey/maximumFields`` fields;
    /// - the request carries `Authorization` and the response says neither `public`,
    ///   `s-maxage` nor `must-revalidate` (§3.5);
    /// - the response has neither explicit freshness (`max-age`, `Expires`), nor `public` /
    ///   `private`, nor a heuristically cacheable status;
    /// - it would never be usable: no freshness lifetime and no validator.
    /// The final statuses RFC 9110 §15 defines, whose caching rules this cache follows: what
    /// `must-understand` asks of a cache before it stores (206 is left out: partial content is
    /// not stored).
    static let understoodStatuses: Set<Int> = Set(200...205).union(300...308).subtracting([306]).union(400...417).union([421, 422, 426])
        .union(500...505)

    static func record(for request: Request, response: ResponseHead, requestTime: Date, responseTime: Date) -> CacheRecord? {
        let requestControl = CacheControl(request: request.headers)
        let control = CacheControl(response.headers)
        let status = response.statusCode
        guard request.method == .GET, !request.body.hasContent, !request.headers.contains(name: "Range"), let key = CacheKey.primary(of: request),
            status >= 200, status != 206, status != 304,
            !requestControl.noStore, !control.noStore || control.mustUnderstand,
            !control.mustUnderstand || Self.understoodStatuses.contains(status),
            let fields = VaryKey.fields(of: response.headers)
        else { return nil }
        if request.headers.contains(name: "Authorization"), !(control.isPublic || control.hasSharedMaxAge || control.mustRevalidate) {
            return nil
        }
        let allowsStoring =
            control.maxAge != nil || response.headers.contains(name: "Expires") || control.isPublic
            || control.isPrivate || Freshness.heuristicStatuses.contains(status)
        guard allowsStoring else { return nil }
        let record = CacheRecord(
            primaryKey: key, varyFields: fields, variant: VaryKey.digest(fields: fields, request: request.headers),
            status: response.status, headers: response.headers, url: response.url, requestTime: requestTime, responseTime: responseTime)
        return record.freshness.isWorthStoring(headers: record.headers) ? record : nil
    }
}
