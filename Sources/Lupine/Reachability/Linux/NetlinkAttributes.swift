/// Netlink's attribute encoding (`struct rtattr`: length, type, value, padded to 4 bytes) and the
/// bounds-checked reads every parser here goes through.
enum NetlinkAttributes {
    /// `length` rounded up to netlink's 4-byte alignment.
    static func aligned(_ length: Int) -> Int {
        (length + 3) & ~3
    }

    /// The attributes in `range` of `bytes`, their type without the nested and byte-order bits;
    /// an attribute whose length does not fit ends the list.
    static func parse(_ range: Range<Int>, in bytes: [UInt8]) -> [(type: UInt16, value: Range<Int>)] {
        var attributes: [(type: UInt16, value: Range<Int>)] = []
        var offset = range.lowerBound
        while let length = bytes.integer(at: offset, as: UInt16.self, within: range).map(Int.init),
            let type = bytes.integer(at: offset + 2, as: UInt16.self, within: range),
            length >= 4, length <= range.upperBound - offset
        {
            attributes.append((type & 0x3FFF, (offset + 4)..<(offset + length)))
            offset += self.aligned(length)
        }
        return attributes
    }

    /// One attribute: type, value, padding.
    static func encode(type: UInt16, value: [UInt8]) -> [UInt8] {
        var bytes = UInt16(4 + value.count).nativeBytes + type.nativeBytes + value
        bytes += [UInt8](repeating: 0, count: self.aligned(bytes.count) - bytes.count)
        return bytes
    }
}

extension [UInt8] {
    /// The integer at `offset`, in the host's byte order (netlink's); `nil` when it does not lie
    /// wholly inside the array and `range`.
    func integer<Value: FixedWidthInteger>(at offset: Int, as: Value.Type, within range: Range<Int>? = nil) -> Value? {
        let bounds = range ?? self.indices
        let size = MemoryLayout<Value>.size
        guard offset >= bounds.lowerBound, offset <= bounds.upperBound - size, offset >= 0, offset <= self.count - size else {
            return nil
        }
        return self.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Value.self) }
    }
}

extension FixedWidthInteger {
    /// The value's bytes in the host's byte order, as netlink wants them.
    var nativeBytes: [UInt8] {
        withUnsafeBytes(of: self) { Array($0) }
    }
}
