import Foundation

/// What an ``HTTPCache`` can do for a request (RFC 9111 §4).
enum CacheDecision: Sendable {
    /// Serve the entry; nothing is sent.
    case fresh(CacheEntry)
    /// The entry is stale or must be validated: send the request with these `If-None-Match` /
    /// `If-Modified-Since` fields; a 304 refreshes it (``HTTPCache/refresh(_:with:requestTime:responseTime:)``).
    case validate(CacheEntry, conditions: HTTPHeaders)
    /// Stale, but the request's `max-stale` accepts it: serve it as it is.
    case staleUsable(CacheEntry)
    /// Send the request; storing may follow.
    case miss
    /// `only-if-cached` and nothing usable: the pipeline answers 504.
    case unsatisfiable

    /// The rules for a stored `entry` and the request's directives at `now`:
    /// - `no-cache` on either side: validate;
    /// - fresh, younger than the request's `max-age` and fresh for its `min-fresh` more: serve;
    /// - stale by no more than the request's `max-stale`, and neither `must-revalidate` nor
    ///   `no-cache`: serve stale;
    /// - otherwise validate, or a miss when the entry has no validator;
    /// - with `only-if-cached`, anything but serving is unsatisfiable.
    init(entry: CacheEntry, request: CacheControl, now: Date) {
        let freshness = entry.record.freshness
        let age = freshness.currentAge(at: now)
        let remaining = freshness.lifetime - age
        let withinMaxAge = request.maxAge.map { age <= TimeInterval($0) } ?? true
        let decision: CacheDecision
        if request.noCache || freshness.noCache || !withinMaxAge {
            decision = Self.validation(of: entry)
        } else if remaining > TimeInterval(request.minFresh ?? 0) {
            decision = .fresh(entry)
        } else if remaining <= 0, !freshness.mustRevalidate, request.minFresh == nil, let maxStale = request.maxStale, -remaining <= TimeInterval(maxStale) {
            decision = .staleUsable(entry)
        } else {
            decision = Self.validation(of: entry)
        }
        switch decision {
        case .fresh, .staleUsable:
            self = decision
        case .validate, .miss, .unsatisfiable:
            self = request.onlyIfCached ? .unsatisfiable : decision
        }
    }

    /// A validation of `entry` with its validators, or a miss when it has none.
    private static func validation(of entry: CacheEntry) -> CacheDecision {
        let conditions = entry.record.conditions
        return conditions.isEmpty ? .miss : .validate(entry, conditions: conditions)
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
