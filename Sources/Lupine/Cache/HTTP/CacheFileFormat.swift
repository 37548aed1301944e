import Foundation

/// The layout of one disk cache entry, one file per stored variant:
///
///     "LPNCACH1" | record length (u32) | record checksum (u64) | record | body
///     | body length (u64) | body checksum (u64) | "LPNCEND1"
///
/// Integers are big-endian; checksums are FNV-1a. A file whose size, magic numbers or checksums
/// disagree is torn or foreign, and never served.
enum CacheFileFormat {
    static let headMagic = Array("LPNCACH1".utf8)
    static let tailMagic = Array("LPNCEND1".utf8)
    /// Magic, record length and record checksum.
    static let headSize = 20
    static let trailerSize = 24
    /// A record longer than this is not read (a foreign or hostile file).
    static let maximumRecordSize = 1 << 20

    /// The head of a file holding `record`, or `nil` when the record is too large to store.
    static func head(of record: CacheRecord) -> [UInt8]? {
        var buffer = ByteBuffer()
        buffer.writeLengthPrefixed(record.primaryKey)
        buffer.writeInteger(UInt32(record.varyFields.count))
        record.varyFields.forEach { buffer.writeLengthPrefixed($0) }
        buffer.writeLengthPrefixed(record.variant)
        buffer.writeInteger(UInt32(record.status.code))
        buffer.writeLengthPrefixed(record.status.reasonPhrase)
        buffer.writeLengthPrefixed(record.url.absoluteString)
        buffer.writeInteger(UInt32(record.headers.count))
        for (name, value) in record.headers {
            buffer.writeLengthPrefixed(name)
            buffer.writeLengthPrefixed(value)
        }
        buffer.writeInteger(record.requestTime.timeIntervalSince1970.bitPattern)
        buffer.writeInteger(record.responseTime.timeIntervalSince1970.bitPattern)
        let bytes = Array(buffer.readableBytesView)
        guard bytes.count <= Self.maximumRecordSize else { return nil }
        var head = ByteBuffer()
        head.writeBytes(Self.headMagic)
        head.writeInteger(UInt32(bytes.count))
        head.writeInteger(Checksum.of(bytes))
        head.writeBytes(bytes)
        return Array(head.readableBytesView)
    }

    /// The trailer after a body of `length` bytes with checksum `checksum`.
    static func trailer(length: Int, checksum: UInt64) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt64(length))
        buffer.writeInteger(checksum)
        buffer.writeBytes(Self.tailMagic)
        return Array(buffer.readableBytesView)
    }

    /// The record length a file head declares, or `nil` when `head` is not one.
    static func recordLength(head: [UInt8]) -> Int? {
        guard head.count == Self.headSize, Array(head[0..<8]) == Self.headMagic else { return nil }
        let length = head[8..<12].reduce(0) { $0 << 8 | Int($1) }
        return length <= Self.maximumRecordSize ? length : nil
    }

    /// The record in `bytes` (checked against the head's checksum), or `nil`.
    static func record(head: [UInt8], bytes: [UInt8]) -> CacheRecord? {
        let checksum = head[12..<20].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard Checksum.of(bytes) == checksum else { return nil }
        var buffer = ByteBuffer(bytes: bytes)
        guard let primaryKey = buffer.readLengthPrefixedString(), let count = buffer.readInteger(as: UInt32.self), count <= VaryKey.maximumFields
        else { return nil }
        var fields: [String] = []
        for _ in 0..<count {
            guard let field = buffer.readLengthPrefixedString() else { return nil }
            fields.append(field)
        }
        guard let variant = buffer.readLengthPrefixedString(), let code = buffer.readInteger(as: UInt32.self), code >= 100, code <= 999,
            let reason = buffer.readLengthPrefixedString(), let url = buffer.readLengthPrefixedString().flatMap(URL.init(string:)),
            let headerCount = buffer.readInteger(as: UInt32.self)
        else { return nil }
        var pairs: [(String, String)] = []
        for _ in 0..<headerCount {
            guard let name = buffer.readLengthPrefixedString(), let value = buffer.readLengthPrefixedString() else { return nil }
            pairs.append((name, value))
        }
        let headers = HTTPHeaders(pairs)
        guard let requested = buffer.readInteger(as: UInt64.self), let received = buffer.readInteger(as: UInt64.self), buffer.readableBytes == 0
        else { return nil }
        let requestTime = Double(bitPattern: requested), responseTime = Double(bitPattern: received)
        // Times no real exchange has (beyond ±3,000 years of 1970) mark a damaged record.
        guard abs(requestTime) < 1e11, abs(responseTime) < 1e11 else { return nil }
        return CacheRecord(
            primaryKey: primaryKey, varyFields: fields, variant: variant, status: HTTPResponseStatus(statusCode: Int(code), reasonPhrase: reason),
            headers: headers, url: url, requestTime: Date(timeIntervalSince1970: requestTime), responseTime: Date(timeIntervalSince1970: responseTime))
    }

    /// The body length and checksum a trailer declares, or `nil` when `trailer` is not one.
    static func bodyDescription(trailer: [UInt8]) -> (length: Int, checksum: UInt64)? {
        guard trailer.count == Self.trailerSize, Array(trailer[16..<24]) == Self.tailMagic else { return nil }
        let length = trailer[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let checksum = trailer[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard length <= UInt64(Int.max) else { return nil }
        return (Int(length), checksum)
    }
}

/// 64-bit FNV-1a, fed in pieces: detects torn and damaged files (not an adversary).
struct Checksum {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func update(_ bytes: some Sequence<UInt8>) {
        var value = self.value
        let contiguous: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            for byte in buffer {
                value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        if contiguous == nil {
            for byte in bytes {
                value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        self.value = value
    }

    static func of(_ bytes: [UInt8]) -> UInt64 {
        var checksum = Checksum()
        checksum.update(bytes)
        return checksum.value
    }
}

extension ByteBuffer {
    fileprivate mutating func writeLengthPrefixed(_ string: String) {
        self.writeInteger(UInt32(string.utf8.count))
        self.writeString(string)
    }

    fileprivate mutating func readLengthPrefixedString() -> String? {
        guard let length = self.readInteger(as: UInt32.self), Int(length) <= self.readableBytes else { return nil }
        return self.readString(length: Int(length))
    }
}
