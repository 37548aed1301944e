import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One disk entry, open and checked. Everything is read through the open descriptor, so a
/// reader sees one whole version of the entry even while another process replaces or removes
/// the file.
final class CacheFile: Sendable {
    let record: CacheRecord
    let bodyLength: Int
    private let descriptor: Int32
    /// Removes the file if it is still the one with this identity: the store's, which does it
    /// under its lock, so a newer entry a store publishes meanwhile is never the one removed.
    private let discarding: @Sendable (FileIdentity) -> Void
    private let bodyOffset: Int
    private let bodyChecksum: UInt64
    private let identity: FileIdentity

    private init(
        record: CacheRecord,
        descriptor: Int32,
        discarding: @escaping @Sendable (FileIdentity) -> Void,
        bodyOffset: Int,
        body: (length: Int, checksum: UInt64),
        identity: FileIdentity
    ) {
        self.record = record
        self.descriptor = descriptor
        self.discarding = discarding
        self.bodyOffset = bodyOffset
        self.bodyLength = body.length
        self.bodyChecksum = body.checksum
        self.identity = identity
    }

    deinit {
        close(self.descriptor)
    }

    /// The entry file at `path`, open, its framing and record checked (not its body); `nil`
    /// when there is no such file (another process removed it), when it is not a regular file (a
    /// symlink is not followed, a FIFO not waited on, and neither is removed: they are not the
    /// cache's), or when it is torn, damaged or foreign. Only a file that begins as the cache's
    /// own do is removed (by `discarding`, given the identity of the file found damaged): one
    /// that merely has an entry's name is someone else's and stays.
    static func opening(path: String, expectedName: String, discarding: @escaping @Sendable (FileIdentity) -> Void) -> CacheFile? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        // Only a regular file of this user's: an entry another user put in a shared or loosely
        // kept directory is never served (it is left alone, not removed).
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid() else {
            close(descriptor)
            return nil
        }
        let identity = FileIdentity(info)
        let size = Int(info.st_size)
        let head = Self.read(descriptor, at: 0, count: CacheFileFormat.headSize)
        guard let recordLength = head.flatMap(CacheFileFormat.recordLength(head:)), let head,
            size >= CacheFileFormat.headSize + recordLength + CacheFileFormat.trailerSize,
            let trailer = Self.read(descriptor, at: size - CacheFileFormat.trailerSize, count: CacheFileFormat.trailerSize),
            let body = CacheFileFormat.bodyDescription(trailer: trailer),
            body.length == size - CacheFileFormat.headSize - recordLength - CacheFileFormat.trailerSize,
            let bytes = Self.read(descriptor, at: CacheFileFormat.headSize, count: recordLength),
            let record = CacheFileFormat.record(head: head, bytes: bytes), record.fileName == expectedName
        else {
            let isOurs = Self.read(descriptor, at: 0, count: CacheFileFormat.headMagic.count) == CacheFileFormat.headMagic
            close(descriptor)
            if isOurs {
                discarding(identity)
            }
            return nil
        }
        return CacheFile(
            record: record,
            descriptor: descriptor,
            discarding: discarding,
            bodyOffset: CacheFileFormat.headSize + recordLength,
            body: body,
            identity: identity
        )
    }

    /// Marks the entry as used now (its modification time is the disk cache's LRU clock).
    func touch() {
        _ = futimens(self.descriptor, nil)
    }

    /// `count` body bytes from `offset`; throws when the file is shorter than it said.
    func readBody(offset: Int, count: Int) throws(CacheEntryDamaged) -> [UInt8] {
        guard let bytes = Self.read(self.descriptor, at: self.bodyOffset + offset, count: count) else {
            self.discard()
            throw CacheEntryDamaged()
        }
        return bytes
    }

    /// Throws, and removes the file, unless `checksum` is the body's.
    func verify(_ checksum: UInt64) throws(CacheEntryDamaged) {
        guard checksum == self.bodyChecksum else {
            self.discard()
            throw CacheEntryDamaged()
        }
    }

    /// Removes the file if it is still this entry (not a newer one another writer put there).
    func discard() {
        self.discarding(self.identity)
    }

    /// Whether the regular file at `path` is empty or begins as the cache's files do: a temporary
    /// file the cache could have been writing, never a stranger's file under a similar name.
    static func isEmptyOrOurs(path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return info.st_size == 0 || Self.read(descriptor, at: 0, count: CacheFileFormat.headMagic.count) == CacheFileFormat.headMagic
    }

    /// Exactly `count` bytes at `offset`, or `nil` when the file ends before or cannot be read.
    static func read(_ descriptor: Int32, at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress.map { $0 + done }, count - done, off_t(offset + done))
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return nil }
            done += result
        }
        return bytes
    }
}

/// A file's device and inode: which file a path named when it was opened.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        self.device = UInt64(info.st_dev)
        self.inode = UInt64(info.st_ino)
    }
}

/// A stored body that turned out torn or damaged: the entry is removed and the request should go
/// to the network.
struct CacheEntryDamaged: Error, CustomStringConvertible {
    var description: String { "the cached response is damaged and was removed; send the request again" }
}
