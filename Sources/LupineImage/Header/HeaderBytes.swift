import Lupine

/// An image's bytes read as a header: every read is checked against the end, so a header cut
/// short is a `LupineError/ImageFailureReason/truncatedHeader(format:)`, never a read past it.
struct HeaderBytes {
    /// The bytes, from the first of the file.
    let bytes: [UInt8]
    /// The format the bytes announced, for the errors.
    let format: ImageFormat

    /// The number of bytes.
    var count: Int { self.bytes.count }

    /// The byte at `offset`.
    func byte(at offset: Int) throws(LupineError) -> UInt8 {
        try self.checkRange(offset, length: 1)
        return self.bytes[offset]
    }

    /// The unsigned big-endian integer of `length` (1 to 4) bytes at `offset`.
    func bigEndian(at offset: Int, length: Int) throws(LupineError) -> Int {
        try self.checkRange(offset, length: length)
        return self.bytes[offset..<offset + length].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The unsigned little-endian integer of `length` (1 to 4) bytes at `offset`.
    func littleEndian(at offset: Int, length: Int) throws(LupineError) -> Int {
        try self.checkRange(offset, length: length)
        return self.bytes[offset..<offset + length].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// Whether the bytes at `offset` are `ascii`'s (false when they run past the end).
    func matches(_ ascii: String, at offset: Int) -> Bool {
        let expected = Array(ascii.utf8)
        guard offset >= 0, offset <= self.count - expected.count else { return false }
        return self.bytes[offset..<offset + expected.count].elementsEqual(expected)
    }

    /// Whether the bytes start with `prefix`.
    func starts(with prefix: [UInt8]) -> Bool {
        self.bytes.starts(with: prefix)
    }

    /// The error for a header that is not one the format allows.
    func invalid(_ reason: String) -> LupineError {
        .responseSerializationFailed(.imageSerializationFailed(.invalidHeader(format: self.format.displayName, reason: reason)))
    }

    /// The error for a header cut short.
    var truncated: LupineError {
        .responseSerializationFailed(.imageSerializationFailed(.truncatedHeader(format: self.format.displayName)))
    }

    private func checkRange(_ offset: Int, length: Int) throws(LupineError) {
        guard offset >= 0, length >= 0, offset <= self.count - length else { throw self.truncated }
    }
}
