import Foundation
import NIOConcurrencyHelpers

/// A stored response as a lookup found it: the head to deliver and a way to its body.
struct CacheEntry: Sendable {
    /// Where the body is.
    enum Body: Sendable {
        /// Held in memory.
        case memory([UInt8])
        /// In an open disk entry.
        case file(CacheFile)
    }

    /// The head to deliver, with `Age` set to the current age (§5.1) and the stored status.
    var head: ResponseHead
    var bodyLength: Int
    /// The stored record the head was made from (for validation and refreshing).
    let record: CacheRecord
    let body: Body

    init(record: CacheRecord, body: Body, now: Date) {
        self.record = record
        self.body = body
        self.head = record.head(at: now)
        switch body {
        case .memory(let bytes): self.bodyLength = bytes.count
        case .file(let file): self.bodyLength = file.bodyLength
        }
    }

    /// The entry as it answers a `HEAD`: the same head (its `Content-Length` that of the `GET`
    /// body, RFC 9110 §9.3.2) and no body.
    var headOnly: CacheEntry {
        var entry = CacheEntry(record: self.record, body: .memory([]), now: Date())
        entry.head = self.head
        return entry
    }

    /// The whole body. A disk entry's file is read and checked against its length and checksum;
    /// a damaged one throws ``CacheEntryDamaged`` and is removed.
    func readBody() throws -> [UInt8] {
        switch self.body {
        case .memory(let bytes):
            return bytes
        case .file(let file):
            let bytes = try file.readBody(offset: 0, count: file.bodyLength)
            try file.verify(Checksum.of(bytes))
            return bytes
        }
    }

    /// Checks a disk entry's body against its length and checksum in one pass over the file,
    /// so that a damaged one is found before anything is delivered (it throws
    /// ``CacheEntryDamaged`` and is removed). An entry in memory needs no check.
    func verify() throws(CacheEntryDamaged) {
        guard case .file(let file) = self.body else { return }
        try Self.check(file, length: self.bodyLength, chunkSize: 1 << 16)
    }

    /// The body in chunks of at most `chunkSize` bytes; a disk entry is read as the chunks are
    /// asked for, so a large one never sits in memory. Before its first chunk, a disk entry's
    /// body is checked against its checksum in one pass over the file (unless the caller has
    /// `verified` it): a damaged entry yields no byte (a reader's output never gets a damaged
    /// body), ends the stream with ``CacheEntryDamaged`` and is removed.
    func bodyChunks(chunkSize: Int, verified: Bool = false) -> AsyncThrowingStream<ByteBuffer, any Error> {
        let chunkSize = max(1, chunkSize)
        let (body, length) = (self.body, self.bodyLength)
        // The position and whether the file was checked, used by the stream's one consumer.
        let progress = NIOLockedValueBox((offset: 0, checked: verified))
        return AsyncThrowingStream {
            let (offset, checked) = progress.withLockedValue { ($0.offset, $0.checked) }
            if case .file(let file) = body, !checked {
                try Self.check(file, length: length, chunkSize: chunkSize)
                progress.withLockedValue { $0.checked = true }
            }
            let count = min(chunkSize, length - offset)
            guard count > 0 else { return nil }
            progress.withLockedValue { $0.offset += count }
            switch body {
            case .memory(let bytes):
                return ByteBuffer(bytes: bytes[offset..<offset + count])
            case .file(let file):
                return ByteBuffer(bytes: try file.readBody(offset: offset, count: count))
            }
        }
    }

    /// Reads `file`'s body of `length` bytes in chunks and checks it against its checksum.
    private static func check(_ file: CacheFile, length: Int, chunkSize: Int) throws(CacheEntryDamaged) {
        var checksum = Checksum()
        var offset = 0
        while offset < length {
            let count = min(chunkSize, length - offset)
            checksum.update(try file.readBody(offset: offset, count: count))
            offset += count
        }
        try file.verify(checksum.value)
    }
}
