import Foundation

/// The cookies of a ``CookieStorage`` and RFC 6265's rules for storing, evicting and choosing
/// them (§5.3, §5.4), without the lock: a value the storage keeps behind its mutex.
struct CookieJar {
    /// A stored cookie, with the orders that break ties between equal times (a flood stored in one
    /// instant still evicts its oldest, and sends in the order it came).
    struct Entry {
        var cookie: Cookie
        var creationOrder: UInt64
        var accessOrder: UInt64
    }

    let maximumPerDomain: Int
    let maximumCount: Int
    /// The cookies by their domain.
    private(set) var domains: [String: [Entry]] = [:]
    private(set) var count = 0
    /// The order of the next cookie stored or sent, counting up; ``storeOlder(_:now:)`` counts
    /// down from the same start, below every cookie stored so far.
    private var clock: UInt64 = 1 << 62
    private var pastClock: UInt64 = 1 << 62

    init(maximumPerDomain: Int, maximumCount: Int) {
        self.maximumPerDomain = max(1, maximumPerDomain)
        self.maximumCount = max(1, maximumCount)
    }

    /// Stores `cookie`, which came from a response for `url` when there is one: it replaces the
    /// cookie of the same name, domain and path, keeping its creation time, and an expired one
    /// only removes that cookie. From an insecure `url`, a cookie that would shadow a secure one
    /// (same name, related domain, a path inside the secure cookie's) is ignored (RFC 6265bis §5.7
    /// step 16). Then the limits are enforced.
    mutating func store(_ cookie: Cookie, from url: URL?, now: Date) {
        if let url, !cookie.isSecure, !CookieDomain.isSecureContext(url), self.shadowsSecureCookie(cookie) {
            return
        }
        self.clock += 1
        self.insert(cookie, order: self.clock, now: now)
    }

    /// Stores `cookie` as ``store(_:from:now:)`` does, but as created and last used before every
    /// cookie stored so far: a cookie file lists the latest first, so past a limit its later lines,
    /// the older cookies, are the ones left out. In a jar with no expired cookie (a file's
    /// reader skips those), such a cookie would be the first evicted, so once its domain or the
    /// jar is full it is not stored at all, and a long file costs no eviction.
    mutating func storeOlder(_ cookie: Cookie, now: Date) {
        let entries = self.domains[cookie.domain] ?? []
        let replaces = entries.contains { $0.cookie.identity == cookie.identity }
        guard replaces || (entries.count < self.maximumPerDomain && self.count < self.maximumCount) else { return }
        self.pastClock -= 1
        self.insert(cookie, order: self.pastClock, now: now)
    }

    private mutating func insert(_ cookie: Cookie, order: UInt64, now: Date) {
        var cookie = cookie
        cookie.lastAccessedAt = now
        var creationOrder = order
        if let existing = self.remove(cookie.identity) {
            cookie.createdAt = existing.cookie.createdAt
            creationOrder = existing.creationOrder
        }
        guard !cookie.isExpired(at: now) else { return }
        self.domains[cookie.domain, default: []].append(Entry(cookie: cookie, creationOrder: creationOrder, accessOrder: order))
        self.count += 1
        self.enforceLimits(domain: cookie.domain, now: now)
    }

    /// The cookies to send to `url` at `now` (§5.4), longest path first, then earliest created;
    /// each one's access time becomes `now`.
    mutating func cookies(for url: URL, now: Date) -> [Cookie] {
        // Asked on every request a session sends: an empty jar answers before parsing anything.
        guard !self.domains.isEmpty, let host = CookieDomain.host(of: url) else { return [] }
        let path = CookieAdmission.requestPath(of: url)
        let secure = CookieDomain.isSecureContext(url)
        var chosen: [Entry] = []
        for domain in Self.candidateDomains(of: host) {
            guard var entries = self.domains[domain] else { continue }
            for index in entries.indices {
                let cookie = entries[index].cookie
                guard !cookie.isExpired(at: now), !cookie.isHostOnly || cookie.domain == host,
                    CookieDomain.matches(host, domain: cookie.domain),
                    CookieAdmission.pathMatches(path, cookiePath: cookie.path), secure || !cookie.isSecure
                else { continue }
                self.clock += 1
                entries[index].cookie.lastAccessedAt = now
                entries[index].accessOrder = self.clock
                chosen.append(entries[index])
            }
            self.domains[domain] = entries
        }
        return chosen.sorted(by: Self.isSentBefore).map(\.cookie)
    }

    /// Every stored cookie, by domain, then as ``cookies(for:now:)`` orders them.
    var all: [Cookie] {
        self.domains.keys.sorted().flatMap { domain in
            (self.domains[domain] ?? []).sorted(by: Self.isSentBefore).map(\.cookie)
        }
    }

    /// Every stored cookie, the earliest created first.
    var byCreation: [Cookie] {
        self.domains.values.flatMap { $0 }.sorted { $0.creationOrder < $1.creationOrder }.map(\.cookie)
    }

    /// Removes the cookie with `identity`'s name, domain and path; returns it.
    @discardableResult
    mutating func remove(_ identity: Cookie.Identity) -> Entry? {
        guard var entries = self.domains[identity.domain],
            let index = entries.firstIndex(where: { $0.cookie.identity == identity })
        else { return nil }
        let removed = entries.remove(at: index)
        self.domains[identity.domain] = entries.isEmpty ? nil : entries
        self.count -= 1
        return removed
    }

    /// Removes every cookie.
    mutating func removeAll() {
        self.domains = [:]
        self.count = 0
    }

    /// Removes every cookie expired at `now`.
    mutating func removeExpired(now: Date) {
        // Only domains holding an expired cookie are copied: this runs on every store past the limit.
        for (domain, entries) in self.domains where entries.contains(where: { $0.cookie.isExpired(at: now) }) {
            let kept = entries.filter { !$0.cookie.isExpired(at: now) }
            if kept.count != entries.count {
                self.domains[domain] = kept.isEmpty ? nil : kept
                self.count -= entries.count - kept.count
            }
        }
    }

    /// The host and each parent domain of it: the only domains whose cookies can match it.
    private static func candidateDomains(of host: String) -> [String] {
        guard !CookieDomain.isIPAddress(host) else { return [host] }
        var domains = [host]
        var rest = Substring(host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty {
                domains.append(String(rest))
            }
        }
        return domains
    }

    /// Whether a secure cookie of `cookie`'s name exists whose domain and `cookie`'s domain-match
    /// one way or the other and whose path `cookie`'s path is inside.
    private func shadowsSecureCookie(_ cookie: Cookie) -> Bool {
        self.domains.contains { domain, entries in
            (CookieDomain.matches(domain, domain: cookie.domain) || CookieDomain.matches(cookie.domain, domain: domain))
                && entries.contains { entry in
                    entry.cookie.isSecure && entry.cookie.name == cookie.name
                        && CookieAdmission.pathMatches(cookie.path, cookiePath: entry.cookie.path)
                }
        }
    }

    /// §5.3's limits: over the per-domain limit, `domain`'s expired cookies go, then its least
    /// recently used; over the total, every expired cookie goes, then the least recently used, a
    /// tenth of the limit more than the excess (as browsers purge), so a long cookie file or a
    /// flood costs one sort per batch rather than a scan of the jar per cookie.
    private mutating func enforceLimits(domain: String, now: Date) {
        if let entries = self.domains[domain], entries.count > self.maximumPerDomain {
            var kept = entries.filter { !$0.cookie.isExpired(at: now) }
            if kept.count > self.maximumPerDomain {
                kept.sort { Self.isUsedLessRecently($0, than: $1) }
                kept.removeFirst(kept.count - self.maximumPerDomain)
            }
            self.domains[domain] = kept
            self.count -= entries.count - kept.count
        }
        guard self.count > self.maximumCount else { return }
        self.removeExpired(now: now)
        guard self.count > self.maximumCount else { return }
        let excess = self.count - self.maximumCount + self.maximumCount / 10
        let victims = self.domains.values.flatMap { $0 }.sorted { Self.isUsedLessRecently($0, than: $1) }.prefix(excess)
        var doomed: [String: Set<UInt64>] = [:]
        for victim in victims {
            doomed[victim.cookie.domain, default: []].insert(victim.creationOrder)
        }
        for (domain, orders) in doomed {
            let entries = self.domains[domain] ?? []
            let kept = entries.filter { !orders.contains($0.creationOrder) }
            self.domains[domain] = kept.isEmpty ? nil : kept
            self.count -= entries.count - kept.count
        }
    }

    /// §5.4 step 2's order: longer paths first, then earlier creation.
    private static func isSentBefore(_ first: Entry, _ second: Entry) -> Bool {
        let (firstLength, secondLength) = (first.cookie.path.utf8.count, second.cookie.path.utf8.count)
        return firstLength != secondLength ? firstLength > secondLength : first.creationOrder < second.creationOrder
    }

    private static func isUsedLessRecently(_ first: Entry, than second: Entry) -> Bool {
        first.cookie.lastAccessedAt != second.cookie.lastAccessedAt
            ? first.cookie.lastAccessedAt < second.cookie.lastAccessedAt
            : first.accessOrder < second.accessOrder
    }
}
