import Foundation

/// The memory half of an ``HTTPCache``: stored variants and their bodies, least recently used
/// evicted first, within a byte capacity. Not locked itself: the cache holds it in its lock.
struct MemoryCacheStore {
    struct Entry {
        var record: CacheRecord
        var body: [UInt8]
        var size: Int
    }

    /// An entry larger than this share of the capacity is not kept in memory.
    static let largestShare = 10

    let capacity: Int
    private(set) var usage = 0
    /// Variants by primary key.
    private var variants: [String: [String: Entry]] = [:]
    /// Use order: each entry (primary key, variant) with the tick of its last use.
    private var lastUse: [Key: UInt64] = [:]
    private var byTick: [UInt64: Key] = [:]
    private var tick: UInt64 = 0
    private var oldestTick: UInt64 = 0

    private struct Key: Hashable {
        var primary: String
        var variant: String
    }

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Whether a body of `size` bytes may be kept.
    func admits(size: Int) -> Bool {
        size <= self.capacity / Self.largestShare
    }

    /// The stored variant of `primaryKey` that `request` selects (the newest when several do); marks it used.
    mutating func lookup(primaryKey: String, request: HTTPHeaders) -> Entry? {
        guard let stored = self.variants[primaryKey] else { return nil }
        var best: Entry?
        var digests: [[String]: String] = [:]
        for entry in stored.values {
            let fields = entry.record.varyFields
            let digest = digests[fields] ?? VaryKey.digest(fields: fields, request: request)
            digests[fields] = digest
            if entry.record.variant == digest, entry.record.responseTime >= (best?.record.responseTime ?? .distantPast) {
                best = entry
            }
        }
        if let best {
            self.markUsed(Key(primary: primaryKey, variant: best.record.variant))
        }
        return best
    }

    /// When the stored response of `variant` of `primaryKey` was received, if one is stored.
    func responseTime(primaryKey: String, variant: String) -> Date? {
        self.variants[primaryKey]?[variant]?.record.responseTime
    }

    /// Keeps `record` with `body`, replacing the same variant and those stored under another
    /// `Vary`, then evicts down to the capacity.
    mutating func insert(_ record: CacheRecord, body: [UInt8]) {
        let size = body.count + record.headers.reduce(record.primaryKey.utf8.count) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        for (variant, entry) in self.variants[record.primaryKey] ?? [:] where variant == record.variant || entry.record.varyFields != record.varyFields {
            self.remove(Key(primary: record.primaryKey, variant: variant))
        }
        guard self.admits(size: size) else { return }
        self.variants[record.primaryKey, default: [:]][record.variant] = Entry(record: record, body: body, size: size)
        self.usage += size
        self.markUsed(Key(primary: record.primaryKey, variant: record.variant))
        while self.usage > self.capacity, self.oldestTick < self.tick {
            if let key = self.byTick[self.oldestTick] {
                self.remove(key)
            }
            self.oldestTick += 1
        }
    }

    /// Removes every variant of `primaryKey`.
    mutating func remove(primaryKey: String) {
        for variant in self.variants[primaryKey]?.keys.map({ $0 }) ?? [] {
            self.remove(Key(primary: primaryKey, variant: variant))
        }
    }

    mutating func removeAll() {
        self = MemoryCacheStore(capacity: self.capacity)
    }

    private mutating func remove(_ key: Key) {
        guard let entry = self.variants[key.primary]?.removeValue(forKey: key.variant) else { return }
        if self.variants[key.primary]?.isEmpty == true {
            self.variants[key.primary] = nil
        }
        self.usage -= entry.size
        if let tick = self.lastUse.removeValue(forKey: key) {
            self.byTick[tick] = nil
        }
    }

    private mutating func markUsed(_ key: Key) {
        if let old = self.lastUse[key] {
            self.byTick[old] = nil
        }
        self.tick += 1
        self.lastUse[key] = self.tick
        self.byTick[self.tick] = key
    }
}
