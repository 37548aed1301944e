import Foundation

/// What RFC 9111 §4.2 needs to know about a stored response, worked out once from its header
/// fields and the times it was asked for and received, so that a lookup is arithmetic only.
struct Freshness: Sendable, Equatable {
    /// Status codes that are heuristically cacheable (RFC 9110 §15.1). 206 is left out: this cache
    /// does not store partial content.
    static let heuristicStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]
    /// The longest heuristic lifetime given: an ancient `Last-Modified` does not make a response
    /// fresh for years.
    static let heuristicCap: TimeInterval = 7 * 86_400

    /// The freshness lifetime (§4.2.1), 0 when there is none.
    var lifetime: TimeInterval
    /// The corrected initial age (§4.2.3).
    var correctedInitialAge: TimeInterval
    /// When the response was received.
    var responseTime: Date
    /// `no-cache`: never used without validation.
    var noCache: Bool
    /// `must-revalidate` (or `no-cache`): never served stale.
    var mustRevalidate: Bool
    /// `immutable` (RFC 8246): while fresh, the body will not change, so a reload (a request's
    /// `max-age=0`) is answered from the cache rather than validated.
    var immutable: Bool
    /// How long past its lifetime `stale-while-revalidate` lets the response be served while it
    /// is revalidated in the background (RFC 5861 §3).
    var staleWhileRevalidate: TimeInterval?
    /// How long past its lifetime `stale-if-error` lets the response stand in for an error
    /// (RFC 5861 §4).
    var staleIfError: TimeInterval?

    init(status: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date) {
        let control = CacheControl(headers)
        let date = headers.first(name: "Date").flatMap { HTTPDate.parse($0, now: responseTime) }
        // A Date after the response arrived is the server's clock running ahead: it must not
        // stretch a heuristic lifetime (Expires is read relative to Date, as §4.2.1 says).
        let dateValue = min(date ?? responseTime, responseTime)
        self.responseTime = responseTime
        self.noCache = control.noCache
        self.mustRevalidate = control.mustRevalidate || control.noCache
        self.immutable = control.immutable
        self.staleWhileRevalidate = control.staleWhileRevalidate.map(TimeInterval.init)
        self.staleIfError = control.staleIfError.map(TimeInterval.init)
        if let maxAge = control.maxAge {
            self.lifetime = TimeInterval(maxAge)
        } else if let expires = headers.first(name: "Expires") {
            // An invalid Expires (`0`, `-1`, garbage) means already expired (§5.3).
            let lifetime = HTTPDate.parse(expires, now: responseTime).map { $0.timeIntervalSince(date ?? responseTime) } ?? 0
            self.lifetime = max(0, lifetime)
        } else if Self.heuristicStatuses.contains(status) || control.isPublic,
            let modified = headers.first(name: "Last-Modified").flatMap({ HTTPDate.parse($0, now: responseTime) })
        {
            let lifetime = dateValue.timeIntervalSince(modified) / 10
            self.lifetime = min(max(0, lifetime), Self.heuristicCap)
        } else {
            self.lifetime = 0
        }
        let apparentAge = max(0, responseTime.timeIntervalSince(date ?? responseTime))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        // Age is one number, but a list (`7200, 0`) is read by its first member, as a repeated
        // field is by its first line: the older age wins, not the one that makes it fresh.
        // Empty list members are no members (RFC 9110 §5.6.1): `, 7200` is 7200.
        let firstAge = headers.first(name: "Age").flatMap { line in
            line.split(separator: ",").lazy.map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        }
        let ageValue = firstAge.flatMap(CacheControl.seconds).map(TimeInterval.init) ?? 0
        self.correctedInitialAge = max(apparentAge, ageValue + responseDelay)
    }

    /// The response's age at `now` (§4.2.3); never negative, even when `now` is before it arrived.
    func currentAge(at now: Date) -> TimeInterval {
        self.correctedInitialAge + max(0, now.timeIntervalSince(self.responseTime))
    }

    /// Whether a stored response could be used: it has a lifetime, can be validated, or may be
    /// served stale (`stale-while-revalidate`, `stale-if-error`).
    func isWorthStoring(headers: HTTPHeaders) -> Bool {
        self.lifetime > 0 || headers.contains(name: "ETag") || headers.contains(name: "Last-Modified")
            || (!self.mustRevalidate && ((self.staleWhileRevalidate ?? 0) > 0 || (self.staleIfError ?? 0) > 0))
    }
}
