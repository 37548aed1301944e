import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The disk half of an ``HTTPCache``: a directory with one file per stored variant, named by
/// digests of its keys, published by renaming a finished temporary file. Several caches, in this
/// process or others, may share the directory: each keeps an index of what it has seen and looks
/// again when the directory changed. Publishing and evicting hold an exclusive `flock` on the
/// directory itself, and bring the index up to date under it first, so the capacity holds for
/// what every sharer stored, not for each one's own entries.
final class DiskCacheStore: Sendable {
    static let temporaryPrefix = ".lpc-tmp-"
    /// A temporary file this old is a dead writer's, whatever its process number says.
    static let abandonedAge: TimeInterval = 86_400

    let directory: URL
    let capacity: Int
    private let state = NIOLockedValueBox(State())

    private struct State {
        var index = DiskCacheIndex()
        /// The directory's modification time when it was last listed.
        var stamp: [Int] = []
    }

    /// Opens `directory` (created if missing), removes dead writers' temporary files and
    /// damaged entries, indexes the rest and evicts down to `capacity` bytes.
    init(directory: URL, capacity: Int) throws(LupineError) {
        self.directory = directory
        self.capacity = max(0, capacity)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            // Foundation's sentence ends with a period, which the message goes on after.
            let reason = (error as NSError).localizedDescription
            throw .cacheDirectoryUnusable(directory, reason: reason.hasSuffix(".") ? String(reason.dropLast()) : reason)
        }
        guard access(directory.path, R_OK | W_OK | X_OK) == 0 else {
            throw .cacheDirectoryUnusable(directory, reason: String(cString: strerror(errno)))
        }
        self.whileHoldingTheDirectory {
            self.synchronize(removingAbandoned: true)
            self.evict()
        }
    }

    /// Runs `body` holding an exclusive `flock` on the directory, which every cache sharing it
    /// takes to publish and evict (another process's publication waits its turn). Without the
    /// lock (a file system that has none) `body` runs all the same.
    private func whileHoldingTheDirectory<Result>(_ body: () -> Result) -> Result {
        let descriptor = openDirectory(self.directory.path)
        guard descriptor >= 0 else { return body() }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
        return body()
    }

    var usage: Int {
        self.state.withLockedValue { $0.index.usage }
    }

    func path(_ name: String) -> String {
        self.directory.appending(path: name).path
    }

    /// The stored variant of `primaryKey` that `request` selects (the newest when several do),
    /// open; `nil` when there is none or its file vanished or is damaged (then it is removed).
    func lookup(primaryKey: String, request: HTTPHeaders) -> CacheFile? {
        if let file = self.select(primaryKey: primaryKey, request: request) {
            return file
        }
        return self.synchronize(removingAbandoned: false) ? self.select(primaryKey: primaryKey, request: request) : nil
    }

    private func select(primaryKey: String, request: HTTPHeaders) -> CacheFile? {
        let keyDigest = CacheDigest.hex(primaryKey).prefix(32)
        let candidates = self.state.withLockedValue { state in
            state.index.names(keyDigest: keyDigest).compactMap { name in state.index.files[name].map { (name, $0.varyFields) } }
        }
        var best: CacheFile?
        for (name, fields) in candidates {
            let variant = VaryKey.digest(fields: fields, request: request)
            guard name == CacheKey.fileName(primary: primaryKey, variant: variant), let file = self.open(name) else { continue }
            if file.record.primaryKey == primaryKey, file.record.variant == variant, file.record.responseTime >= (best?.record.responseTime ?? .distantPast) {
                best = file
            }
        }
        if let best {
            best.touch()
            let now = Date().timeIntervalSince1970
            self.state.withLockedValue { $0.index.touch(best.record.fileName, at: now) }
        }
        return best
    }

    /// The entry file `name`, open, or `nil` and forgotten (unless a store published a new file
    /// under that name meanwhile: that one stays counted).
    func open(_ name: String) -> CacheFile? {
        let seen = self.identity(of: name)
        // Held strongly: an entry read after its cache is gone still removes its damaged file.
        let discarding: @Sendable (FileIdentity) -> Void = { damaged in self.discard(name, ifStill: damaged) }
        guard let file = CacheFile.opening(path: self.path(name), expectedName: name, discarding: discarding) else {
            self.state.withLockedValue { state in
                let now = self.identity(of: name)
                if now == nil || now == seen {
                    state.index.remove(name)
                }
            }
            return nil
        }
        return file
    }

    /// Removes and forgets the entry `name` if its file is still the one with `identity` (a
    /// damaged one), under the lock, where a store publishing a new file under that name runs.
    private func discard(_ name: String, ifStill identity: FileIdentity) {
        self.state.withLockedValue { state in
            guard self.identity(of: name) == identity else { return }
            self.removeEntries([name], from: &state)
        }
    }

    /// The identity of whatever has the name `name` now (a link is not followed); `nil` for none.
    private func identity(of name: String) -> FileIdentity? {
        var info = stat()
        return lstat(self.path(name), &info) == 0 ? FileIdentity(info) : nil
    }

    private func exists(_ name: String) -> Bool {
        self.identity(of: name) != nil
    }

    // Every rename and unlink of an entry happens under the lock, with the index change it
    // goes with: otherwise a remove could unlink a file a store had just published, and the
    // index would count a file that is gone.

    /// Publishes the finished temporary file at `temporaryPath` as `record`'s entry of `size`
    /// bytes, replacing the variant it supersedes and those stored under another `Vary`; evicts
    /// down to the capacity what every cache sharing the directory stored.
    @discardableResult
    func publish(temporaryPath: String, record: CacheRecord, size: Int) -> Bool {
        self.whileHoldingTheDirectory {
            // What the other sharers stored counts against the capacity too.
            self.synchronize(removingAbandoned: false)
            return self.publishHoldingTheDirectory(temporaryPath: temporaryPath, record: record, size: size)
        }
    }

    private func publishHoldingTheDirectory(temporaryPath: String, record: CacheRecord, size: Int) -> Bool {
        let name = record.fileName
        let now = Date().timeIntervalSince1970
        return self.state.withLockedValue { state in
            guard rename(temporaryPath, self.path(name)) == 0 else {
                unlink(temporaryPath)
                return false
            }
            let superseded = state.index.names(keyDigest: DiskCacheIndex.keyDigest(of: name)).filter { other in
                other != name && state.index.files[other]?.varyFields != record.varyFields
            }
            state.index.insert(name, .init(size: size, lastUse: now, varyFields: record.varyFields))
            self.removeEntries(superseded, from: &state)
            self.removeEntries(state.index.evict(toFit: self.capacity), from: &state)
            return true
        }
    }

    /// Removes every variant stored under `primaryKey`.
    func remove(primaryKey: String) {
        self.synchronize(removingAbandoned: false)
        let keyDigest = CacheDigest.hex(primaryKey).prefix(32)
        self.state.withLockedValue { state in
            self.removeEntries(state.index.names(keyDigest: keyDigest), from: &state)
        }
    }

    /// Removes every entry (and nothing else in the directory).
    func removeAll() {
        self.synchronize(removingAbandoned: false)
        self.state.withLockedValue { state in
            self.removeEntries(Array(state.index.files.keys), from: &state)
        }
    }

    private func evict() {
        self.state.withLockedValue { state in
            self.removeEntries(state.index.evict(toFit: self.capacity), from: &state)
        }
    }

    /// Forgets and removes the entries `names`; called with the lock held.
    private func removeEntries(_ names: some Sequence<String>, from state: inout State) {
        for name in names {
            state.index.remove(name)
            unlink(self.path(name))
        }
    }

    /// Brings the index up to date with the directory when it changed since it was last listed:
    /// indexes new entries, forgets vanished ones, removes damaged ones (and, when asked, dead
    /// writers' temporary files). Returns whether the directory had changed.
    @discardableResult
    private func synchronize(removingAbandoned: Bool) -> Bool {
        let stamp = self.directoryStamp()
        let known = self.state.withLockedValue { state -> [String: DiskCacheIndex.File]? in
            state.stamp == stamp && !removingAbandoned ? nil : state.index.files
        }
        guard let known else { return false }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: self.directory.path)) ?? []
        var found: [String: DiskCacheIndex.File] = [:]
        for name in names {
            if name.hasPrefix(Self.temporaryPrefix) {
                if removingAbandoned, self.isAbandoned(name) {
                    unlink(self.path(name))
                }
                continue
            }
            guard DiskCacheIndex.isEntryName(name) else { continue }
            if let file = known[name] {
                found[name] = file
                continue
            }
            var info = stat()
            guard lstat(self.path(name), &info) == 0 else { continue }
            guard let file = self.open(name) else { continue }
            found[name] = .init(size: Int(info.st_size), lastUse: info.modificationTime, varyFields: file.record.varyFields)
        }
        // The listing may be older than a store or remove that ran meanwhile: what it says is
        // checked again under the lock, where those run.
        self.state.withLockedValue { state in
            for name in state.index.files.keys where found[name] == nil && known[name] != nil && !self.exists(name) {
                state.index.remove(name)
            }
            for (name, file) in found where state.index.files[name] == nil && self.exists(name) {
                state.index.insert(name, file)
            }
            state.stamp = stamp
        }
        return true
    }

    private func directoryStamp() -> [Int] {
        var info = stat()
        guard stat(self.directory.path, &info) == 0 else { return [] }
        return info.modificationStamp + [Int(info.st_ino)]
    }

    /// Whether the temporary file `name` (`.lpc-tmp-<pid>-<random>`) belongs to a writer that
    /// is gone: its process no longer exists, or the file is older than ``abandonedAge``; and only
    /// when it is empty or begins as the cache's files do (a stranger's file is left alone).
    private func isAbandoned(_ name: String) -> Bool {
        guard CacheFile.isEmptyOrOurs(path: self.path(name)) else { return false }
        let pid = name.dropFirst(Self.temporaryPrefix.count).split(separator: "-").first.flatMap { Int32($0) }
        if let pid, pid > 0, kill(pid, 0) != 0, errno == ESRCH {
            return true
        }
        var info = stat()
        guard lstat(self.path(name), &info) == 0 else { return false }
        return Date().timeIntervalSince1970 - info.modificationTime > Self.abandonedAge
    }
}

/// A descriptor for the directory at `path` (to lock), or -1. At file scope, where `open` is the
/// C library's rather than the store's own method.
private func openDirectory(_ path: String) -> CInt {
    open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
}

extension stat {
    /// The modification time in seconds since 1970, to the nanosecond where the system keeps it.
    fileprivate var modificationTime: TimeInterval {
        let stamp = self.modificationStamp
        return TimeInterval(stamp[0]) + TimeInterval(stamp[1]) / 1e9
    }

    /// The modification time as seconds and nanoseconds.
    fileprivate var modificationStamp: [Int] {
        #if canImport(Darwin)
        let time = self.st_mtimespec
        #else
        let time = self.st_mtim
        #endif
        return [Int(time.tv_sec), Int(time.tv_nsec)]
    }
}
