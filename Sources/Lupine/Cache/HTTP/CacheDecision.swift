import Foundation

/// What an ``HTTPCache`` can do for a request (RFC 9111 §4, RFC 5861).
enum CacheDecision: Sendable {
    /// Serve the entry; nothing is sent.
    case fresh(CacheEntry)
    /// Send the request with these `If-None-Match` / `If-Modified-Since` fields; a 304 refreshes
    /// the entry (``HTTPCache/refresh(_:with:requestTime:responseTime:)``). The fields are empty
    /// when the entry has no validator and is kept only for `staleIfError`. With `staleIfError`,
    /// a request that fails (a transport error, or a final 500, 502, 503 or 504) delivers the
    /// entry instead of the failure.
    case validate(CacheEntry, conditions: HTTPHeaders, staleIfError: Bool)
    /// Stale, but the request's `max-stale` accepts it: serve it as it is.
    case staleUsable(CacheEntry)
    /// Stale within the response's `stale-while-revalidate`: serve it at once, and revalidate it
    /// in the background with these fields (empty when it has no validator: the request is sent
    /// as it is and a storable response replaces the entry).
    case staleWhileRevalidate(CacheEntry, conditions: HTTPHeaders)
    /// Send the request; storing may follow.
    case miss
    /// `only-if-cached` and nothing usable: the pipeline answers 504.
    case unsatisfiable

    /// The rules for a stored `entry` and the request's directives at `now`:
    /// - `no-cache` on either side, or older than the request's `max-age` (unless it is a
    ///   reload's `max-age=0` and the response fresh and `immutable`): validate;
    /// - fresh, and fresh for the request's `min-fresh` more: serve;
    /// - stale by no more than the response's `stale-while-revalidate`, with no `min-fresh`:
    ///   serve and revalidate in the background;
    /// - stale by no more than the request's `max-stale`, with no `min-fresh`: serve stale;
    /// - otherwise validate, or a miss when the entry has no validator and `stale-if-error`
    ///   does not keep it as a fallback.
    ///
    /// Nothing is served stale, by any of these, when the response says `must-revalidate` or
    /// `no-cache` or the request says `no-cache`. `stale-if-error` may come from the response or
    /// the request (the larger allowance counts) and is judged at `now`. With `only-if-cached`,
    /// a stale entry within `stale-while-revalidate` is served with nothing sent, and anything
    /// that would send is unsatisfiable.
    init(entry: CacheEntry, request: CacheControl, now: Date) {
        let freshness = entry.record.freshness
        let age = freshness.currentAge(at: now)
        let remaining = freshness.lifetime - age
        // A fresh `immutable` response does not change: a reload's `max-age=0` does not
        // validate it (RFC 8246 §2; a request's `no-cache` still does).
        let isReload = request.maxAge == 0
        let withinMaxAge = (freshness.immutable && remaining > 0 && isReload) || (request.maxAge.map { age <= TimeInterval($0) } ?? true)
        let mayServeStale = !freshness.mustRevalidate && !request.noCache
        let decision: CacheDecision
        if request.noCache || freshness.noCache || !withinMaxAge {
            decision = Self.validation(of: entry, request: request, staleness: -remaining, mayServeStale: mayServeStale)
        } else if remaining > TimeInterval(request.minFresh ?? 0) {
            decision = .fresh(entry)
        } else if remaining <= 0, mayServeStale, request.minFresh == nil, let window = freshness.staleWhileRevalidate, window > 0, -remaining <= window {
            decision = .staleWhileRevalidate(entry, conditions: entry.record.conditions)
        } else if remaining <= 0, mayServeStale, request.minFresh == nil, let maxStale = request.maxStale, -remaining <= TimeInterval(maxStale) {
            decision = .staleUsable(entry)
        } else {
            decision = Self.validation(of: entry, request: request, staleness: -remaining, mayServeStale: mayServeStale)
        }
        switch decision {
        case .fresh, .staleUsable:
            self = decision
        case .staleWhileRevalidate(let entry, _):
            self = request.onlyIfCached ? .staleUsable(entry) : decision
        case .validate, .miss, .unsatisfiable:
            self = request.onlyIfCached ? .unsatisfiable : decision
        }
    }

    /// A validation of `entry` with its validators, keeping it as the `stale-if-error` fallback
    /// when it is stale by no more than either side allows; a miss when it has no validator and
    /// is no fallback.
    private static func validation(of entry: CacheEntry, request: CacheControl, staleness: TimeInterval, mayServeStale: Bool) -> CacheDecision {
        let allowances = [entry.record.freshness.staleIfError, request.staleIfError.map(TimeInterval.init)].compactMap { $0 }
        let staleIfError = mayServeStale && allowances.contains { staleness <= $0 }
        let conditions = entry.record.conditions
        return conditions.isEmpty && !staleIfError ? .miss : .validate(entry, conditions: conditions, staleIfError: staleIfError)
    }
}

extension CacheRecord {
    /// The conditional fields that validate this response (RFC 9111 §4.3.1): `If-None-Match` with
    /// its `ETag`, `If-Modified-Since` with its `Last-Modified`.
    var conditions: HTTPHeaders {
        var conditions = HTTPHeaders()
        if let etag = self.headers.first(name: "ETag") {
            conditions.add(name: "If-None-Match", value: etag)
        }
        if let modified = self.headers.first(name: "Last-Modified") {
            conditions.add(name: "If-Modified-Since", value: modified)
        }
        return conditions
    }
}
