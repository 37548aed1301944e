import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stores one response's body as it arrives: in memory while it is small enough for the memory
/// store, and in a temporary file of the disk store's directory. Nothing is visible until
/// ``commit()``; a writer dropped without one cleans up as ``abandon()`` does.
///
/// Not Sendable-shared: one per response, used from one task.
final class CacheEntryWriter {
    private let cache: HTTPCache
    private let record: CacheRecord
    private var memory: [UInt8]?
    private var file: (descriptor: Int32, path: String, store: DiskCacheStore, headSize: Int)?
    private var length = 0
    private var checksum = Checksum()
    private var finished = false
    /// For a refresh (a 304's headers on a stored body), when the refreshed response was received:
    /// a response stored since (a newer 200, by another request) is not replaced with it.
    private let refreshing: Date?

    init(cache: HTTPCache, record: CacheRecord, keepsInMemory: Bool, disk: DiskCacheStore?, refreshing: Date? = nil) {
        self.cache = cache
        self.record = record
        self.refreshing = refreshing
        self.memory = keepsInMemory ? [] : nil
        if let disk, let head = CacheFileFormat.head(of: record) {
            let path = disk.path("\(DiskCacheStore.temporaryPrefix)\(getpid())-\(UUID().uuidString)")
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if descriptor >= 0 {
                self.file = (descriptor, path, disk, head.count)
                self.writeToFile(head)
            }
        }
    }

    deinit {
        self.abandon()
    }

    /// Adds the next piece of the body. Never fails: when the disk is full or the body outgrows a
    /// store, that store's copy is dropped quietly, and the response the caller reads is unaffected.
    func append(_ chunk: ByteBuffer) {
        self.append(bytes: chunk.readableBytesView)
    }

    /// Adds the next piece of the body, from bytes in memory; as ``append(_:)``.
    func append(bytes: some Collection<UInt8>) {
        guard !self.finished else { return }
        self.length += bytes.count
        // Once neither store keeps a copy, the rest of the body costs nothing.
        guard self.memory != nil || self.file != nil else { return }
        self.checksum.update(bytes)
        if self.memory != nil {
            if self.cache.memoryAdmits(size: self.length) {
                self.memory?.append(contentsOf: bytes)
            } else {
                self.memory = nil
            }
        }
        if let file = self.file, file.headSize + self.length > file.store.capacity {
            self.dropFile()
        }
        self.writeToFile(bytes)
    }

    /// Whether a store still keeps a copy of the body: once neither does (it outgrew both, or
    /// the disk is full), the rest of it is not worth reading for the cache.
    var isKeeping: Bool {
        !self.finished && (self.memory != nil || self.file != nil)
    }

    /// Publishes the entry (atomically, by renaming the finished file), replacing the variant it
    /// supersedes; a refresh whose variant was stored anew meanwhile is abandoned. The body is stored as appended: a cut response is the caller's to abandon
    /// (the transport fails it), and a handler may have changed the body on purpose.
    func commit() {
        guard !self.finished else { return }
        if let refreshing = self.refreshing, self.cache.storesNewer(than: refreshing, as: self.record) {
            return self.abandon()
        }
        self.writeToFile(CacheFileFormat.trailer(length: self.length, checksum: self.checksum.value))
        self.finished = true
        var published = false
        if let file = self.file {
            self.file = nil
            published = close(file.descriptor) == 0 && file.store.publish(temporaryPath: file.path, record: self.record, size: file.headSize + self.length + CacheFileFormat.trailerSize)
            if !published {
                unlink(file.path)
            }
        }
        self.cache.publish(self.record, body: self.memory, onDisk: published)
        self.memory = nil
    }

    /// Removes what was written; nothing is stored.
    func abandon() {
        self.finished = true
        self.memory = nil
        self.dropFile()
    }

    private func dropFile() {
        guard let file = self.file else { return }
        self.file = nil
        close(file.descriptor)
        unlink(file.path)
    }

    private func writeToFile(_ bytes: some Collection<UInt8>) {
        guard let file = self.file else { return }
        let failed = bytes.withContiguousStorageIfAvailable { buffer -> Bool in
            var done = 0
            while done < buffer.count {
                let result = write(file.descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done)
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { return true }
                done += result
            }
            return false
        }
        if failed ?? true {
            self.dropFile()
        }
    }
}
