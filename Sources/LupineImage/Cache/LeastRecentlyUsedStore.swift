/// The state of an ``AutoPurgingImageCache``: images by identifier with their cost and when each
/// was last touched, counted by a monotonic counter (a clock could stand still or step back), and
/// the purge that drops the least recently touched first. A plain value, no locking.
struct LeastRecentlyUsedStore {
    private struct Entry {
        let image: Image
        let cost: Int
        var lastAccess: UInt64
    }

    private var entries: [String: Entry] = [:]
    private var accessCounter: UInt64 = 0
    /// The sum of the kept images' costs.
    private(set) var usage = 0

    /// Keeps `image` under `identifier` at `cost`, replacing what was kept there.
    mutating func add(_ image: Image, cost: Int, withIdentifier identifier: String) {
        let entry = Entry(image: image, cost: cost, lastAccess: self.nextAccess())
        let previous = self.entries.updateValue(entry, forKey: identifier)
        self.usage = self.usage - (previous?.cost ?? 0) + cost
    }

    /// The image under `identifier`, marked as the most recently touched.
    mutating func image(withIdentifier identifier: String) -> Image? {
        guard let entry = self.entries[identifier] else { return nil }
        let access = self.nextAccess()
        self.entries[identifier]?.lastAccess = access
        return entry.image
    }

    /// Drops the image under `identifier`; whether there was one.
    mutating func remove(_ identifier: String) -> Bool {
        guard let removed = self.entries.removeValue(forKey: identifier) else { return false }
        self.usage -= removed.cost
        return true
    }

    /// Drops everything; whether there was anything.
    mutating func removeAll() -> Bool {
        let hadAny = !self.entries.isEmpty
        self.entries.removeAll()
        self.usage = 0
        return hadAny
    }

    /// Drops the least recently touched images until the usage is at most `target`; returns the
    /// bytes freed.
    mutating func purge(downTo target: Int) -> Int {
        guard self.usage > target else { return 0 }
        let before = self.usage
        let oldestFirst = self.entries.sorted { $0.value.lastAccess < $1.value.lastAccess }
        for (identifier, entry) in oldestFirst where self.usage > target {
            self.entries[identifier] = nil
            self.usage -= entry.cost
        }
        return before - self.usage
    }

    private mutating func nextAccess() -> UInt64 {
        self.accessCounter += 1
        return self.accessCounter
    }
}
