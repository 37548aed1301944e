import Foundation

/// What a disk cache knows of its directory without opening files: each entry file's size, last
/// use and the fields its variant depends on.
struct DiskCacheIndex {
    struct File {
        var size: Int
        var lastUse: TimeInterval
        var varyFields: [String]
    }

    private(set) var files: [String: File] = [:]
    /// Entry file names by the first half of their name (the primary key's digest).
    private var namesByKey: [Substring: Set<String>] = [:]
    private(set) var usage = 0

    /// The names of the variants stored under the primary key whose digest starts `keyDigest`.
    func names(keyDigest: Substring) -> Set<String> {
        self.namesByKey[keyDigest] ?? []
    }

    mutating func insert(_ name: String, _ file: File) {
        self.remove(name)
        self.files[name] = file
        self.namesByKey[Self.keyDigest(of: name), default: []].insert(name)
        self.usage += file.size
    }

    @discardableResult
    mutating func remove(_ name: String) -> File? {
        guard let file = self.files.removeValue(forKey: name) else { return nil }
        let key = Self.keyDigest(of: name)
        self.namesByKey[key]?.remove(name)
        if self.namesByKey[key]?.isEmpty == true {
            self.namesByKey[key] = nil
        }
        self.usage -= file.size
        return file
    }

    mutating func touch(_ name: String, at time: TimeInterval) {
        self.files[name]?.lastUse = time
    }

    /// Once more than `capacity` bytes are used, removes the least recently used entries down to
    /// nine tenths of it (so that a full cache sorts its entries once per tenth of churn, not
    /// on every store), and returns their names.
    mutating func evict(toFit capacity: Int) -> [String] {
        guard self.usage > capacity else { return [] }
        let target = capacity / 10 * 9
        var victims: [String] = []
        for (name, _) in self.files.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where self.usage > target {
            self.remove(name)
            victims.append(name)
        }
        return victims
    }

    static func keyDigest(of name: String) -> Substring {
        name.prefix(32)
    }

    /// Whether `name` is an entry file's name (`<32 hex>-<32 hex>.lpc`); nothing else in the
    /// directory is ever read or removed, except this cache's own temporary files.
    static func isEntryName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count == 69, bytes[32] == UInt8(ascii: "-"), name.hasSuffix(".lpc") else { return false }
        return (bytes[0..<32] + bytes[33..<65]).allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }
}
