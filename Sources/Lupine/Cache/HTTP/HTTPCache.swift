import Foundation
import NIOConcurrencyHelpers

/// AFNetworking's URLCache for Lupine: a private HTTP cache (RFC 9111), in memory and optionally
/// on disk.
///
/// Only `GET` responses are stored, by their URL (without fragment or user information) and the
/// request fields their `Vary` names; a `HEAD` is answered from, and its `304` refreshes, the
/// stored `GET` response, and its own `200` is never stored. In memory, the least recently used responses go first once
/// `memoryCapacity` bytes are used, and a response larger than a tenth of it is kept on disk
/// only. On disk, each response is one file in `directory`, written to a temporary file and
/// renamed, so a crash never leaves a torn entry; other processes may use the same directory.
public final class HTTPCache: Sendable {
    private let memory: NIOLockedValueBox<MemoryCacheStore>
    let disk: DiskCacheStore?
    /// The background revalidations (`stale-while-revalidate`) running, by primary key.
    let revalidations = NIOLockedValueBox<[String: Task<Void, Never>]>([:])

    /// A cache in memory only, of `memoryCapacity` bytes.
    public init(memoryCapacity: Int) {
        self.memory = NIOLockedValueBox(MemoryCacheStore(capacity: memoryCapacity))
        self.disk = nil
    }

    /// A cache in memory and in `directory`, of `memoryCapacity` and `diskCapacity` bytes. The
    /// directory is created if missing, its entries indexed, damaged ones and dead writers'
    /// temporary files removed; files it did not create are left alone.
    ///
    /// - Throws: ``LupineError/cacheDirectoryUnusable(_:reason:)`` when the directory cannot be
    ///   created, read or written.
    public init(memoryCapacity: Int, diskCapacity: Int, directory: URL) throws(LupineError) {
        self.memory = NIOLockedValueBox(MemoryCacheStore(capacity: memoryCapacity))
        self.disk = try DiskCacheStore(directory: directory, capacity: diskCapacity)
    }

    /// The bytes the memory store holds.
    public var currentMemoryUsage: Int {
        self.memory.withLockedValue { $0.usage }
    }

    /// The bytes the disk store's entries take.
    public var currentDiskUsage: Int {
        self.disk?.usage ?? 0
    }

    /// Removes every stored response (in the disk directory, only the cache's own files).
    public func removeAllCachedResponses() {
        self.memory.withLockedValue { $0.removeAll() }
        self.disk?.removeAll()
    }

    /// Removes every stored response for `request`'s URL (and `Host`), whatever it varies on.
    public func removeCachedResponse(for request: Request) {
        guard let key = CacheKey.primary(of: request) else { return }
        self.remove(primaryKey: key)
    }

    /// What the cache can do for `request` at `now` (RFC 9111 §4); reads metadata only.
    func decision(for request: Request, now: Date) -> CacheDecision {
        let control = CacheControl(request: request.headers)
        guard Self.mayUseStored(request), !control.noStore, let entry = self.anyStoredEntry(for: request, now: now) else {
            return control.onlyIfCached ? .unsatisfiable : .miss
        }
        return CacheDecision(entry: entry, request: control, now: now)
    }

    /// The entry stored for `request` whatever its freshness (for the policies that accept any).
    func anyStoredEntry(for request: Request) -> CacheEntry? {
        Self.mayUseStored(request) ? self.anyStoredEntry(for: request, now: Date()) : nil
    }

    private func anyStoredEntry(for request: Request, now: Date) -> CacheEntry? {
        guard let key = CacheKey.primary(of: request) else { return nil }
        if let found = self.memory.withLockedValue({ $0.lookup(primaryKey: key, request: request.headers) }) {
            return CacheEntry(record: found.record, body: .memory(found.body), now: now)
        }
        guard let file = self.disk?.lookup(primaryKey: key, request: request.headers) else { return nil }
        return CacheEntry(record: file.record, body: .file(file), now: now)
    }

    /// A writer for the response to `request`, or `nil` when RFC 9111 §3 says not to store it
    /// (see ``CacheStorability``).
    func writer(for request: Request, response: ResponseHead, requestTime: Date, responseTime: Date) -> CacheEntryWriter? {
        guard let record = CacheStorability.record(for: request, response: response, requestTime: requestTime, responseTime: responseTime)
        else { return nil }
        return CacheEntryWriter(cache: self, record: record, keepsInMemory: self.memoryAdmits(size: 0), disk: self.disk)
    }

    /// Whether the variant `record` names is stored with a response received after `instant`, in
    /// memory or on disk.
    func storesNewer(than instant: Date, as record: CacheRecord) -> Bool {
        let inMemory = self.memory.withLockedValue { $0.responseTime(primaryKey: record.primaryKey, variant: record.variant) }
        if let inMemory, inMemory > instant { return true }
        guard let disk = self.disk, let file = disk.open(record.fileName) else { return false }
        return file.record.responseTime > instant
    }

    /// Whether the memory store would keep a body of `size` bytes.
    func memoryAdmits(size: Int) -> Bool {
        self.memory.withLockedValue { $0.admits(size: size) }
    }

    /// Called by a committing writer: keeps `body` in memory when there is one; a store the new
    /// response did not reach loses its older copies of the URL, which it supersedes.
    func publish(_ record: CacheRecord, body: [UInt8]?, onDisk: Bool) {
        if let body {
            self.memory.withLockedValue { $0.insert(record, body: body) }
        } else {
            self.memory.withLockedValue { $0.remove(primaryKey: record.primaryKey) }
        }
        if !onDisk {
            self.disk?.remove(primaryKey: record.primaryKey)
        }
    }

    func remove(primaryKey: String) {
        self.memory.withLockedValue { $0.remove(primaryKey: primaryKey) }
        self.disk?.remove(primaryKey: primaryKey)
    }

    /// Whether a stored response may answer `request`: a `GET`, or a `HEAD` (answered with the
    /// stored `GET` response's head, RFC 9110 §9.3.2), with no body, conditions or range of its
    /// own (those go to the server as they are: a `GET` whose body selects the answer, as a search
    /// API's, is not the URL's stored answer).
    private static func mayUseStored(_ request: Request) -> Bool {
        (request.method == .GET || request.method == .HEAD) && !request.body.hasContent
            && !["Range", "If-Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since"].contains { request.headers.contains(name: $0) }
    }
}
