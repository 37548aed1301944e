/// The binary property lists Foundation's `PropertyListSerialization` on Linux cannot be given,
/// found by reading the file's trailer and offset table before it sees them (issue 29).
///
/// - A set object (marker `0xC_`) with any element crashes the process inside
///   `propertyList(from:)`: swift-corelibs-foundation bridges an `NSSet` to a Swift `Set` by casting
///   the address of each slot instead of the object in it. XML and OpenStep property lists cannot
///   hold a set; an empty set is harmless but refused with the rest.
/// - A date holding NaN (marker `0x33`) parses, then traps whoever prints it.
///
/// Only objects the offset table names are ever parsed, so checking each of them is complete. A
/// trailer or table that does not fit the file is refused too (Foundation would refuse it).
enum BinaryPropertyListGuard {
    /// Why `bytes` must not reach `PropertyListSerialization`, or `nil` when they may (every
    /// property list that is not binary).
    static func refusal(of bytes: [UInt8]) -> String? {
        guard bytes.starts(with: "bplist0".utf8) else { return nil }
        let trailerLength = 32
        guard bytes.count >= 8 + 1 + trailerLength else { return "the binary property list is too short for its trailer" }
        let trailer = bytes.count - trailerLength
        let offsetSize = Int(bytes[trailer + 6])
        guard (1...8).contains(offsetSize),
            let objectCount = Self.bigEndian(bytes, at: trailer + 8, size: 8),
            let tableOffset = Self.bigEndian(bytes, at: trailer + 24, size: 8),
            objectCount >= 1, objectCount <= UInt64(trailer),
            tableOffset >= 9, tableOffset < UInt64(trailer),
            Int(tableOffset) + Int(objectCount) * offsetSize <= trailer
        else {
            return "the binary property list's trailer does not fit the file"
        }
        for object in 0..<Int(objectCount) {
            guard let offset = Self.bigEndian(bytes, at: Int(tableOffset) + object * offsetSize, size: offsetSize) else {
                return "the binary property list's offset table does not fit the file"
            }
            // An offset past the end is Foundation's to refuse.
            guard offset < UInt64(bytes.count) else { continue }
            let marker = bytes[Int(offset)]
            if marker & 0xF0 == 0xC0 {
                return "the binary property list holds a set (object \(object)), which Foundation on Linux cannot read safely"
            }
            if marker == 0x33, let bits = Self.bigEndian(bytes, at: Int(offset) + 1, size: 8), Double(bitPattern: bits).isNaN {
                return "the binary property list holds a date that is not a number (object \(object))"
            }
        }
        return nil
    }

    /// The unsigned big-endian integer of `size` bytes at `offset`, or `nil` past the end.
    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64? {
        guard (1...8).contains(size), offset >= 0, offset <= bytes.count - size else { return nil }
        return bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
