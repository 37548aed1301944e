/// The binary property lists Foundation's `PropertyListSerialization` on Linux cannot be given,
/// found by reading the file's trailer and offset table before it sees them (issue 29).
///
/// - A set object (marker `0xC_`) with any element crashes the process inside
///   `propertyList(from:)`: swift-corelibs-foundation bridges an `NSSet` to a Swift `Set` by casting
///   the address of each slot instead of the object in it. XML and OpenStep property lists cannot
///   hold a set; an empty set is harmless but refused with the rest.
/// - A date holding NaN (marker `0x33`) parses, then traps whoever prints it.
/// - References shared many times: Foundation copies an object for each reference, so a small
///   file of arrays that each name the one before twice stands for 2^n objects. What a file stands
///   for once every reference is followed is bounded (``maximumExpandedObjects``,
///   ``maximumExpandedBytes``).
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
        var offsets: [Int?] = []
        offsets.reserveCapacity(Int(objectCount))
        for object in 0..<Int(objectCount) {
            guard let offset = Self.bigEndian(bytes, at: Int(tableOffset) + object * offsetSize, size: offsetSize) else {
                return "the binary property list's offset table does not fit the file"
            }
            // An offset past the end is Foundation's to refuse.
            guard offset < UInt64(bytes.count) else {
                offsets.append(nil)
                continue
            }
            offsets.append(Int(offset))
            let marker = bytes[Int(offset)]
            if marker & 0xF0 == 0xC0 {
                return "the binary property list holds a set (object \(object)), which Foundation on Linux cannot read safely"
            }
            if marker == 0x33, let bits = Self.bigEndian(bytes, at: Int(offset) + 1, size: 8), Double(bitPattern: bits).isNaN {
                return "the binary property list holds a date that is not a number (object \(object))"
            }
        }
        return Self.expansionRefusal(bytes, offsets: offsets, referenceSize: Int(bytes[trailer + 7]))
    }

    /// The most objects, and the most bytes of strings and data, a binary property list may
    /// stand for once every reference is followed: Foundation copies an object for each
    /// reference to it, so a few hundred bytes of arrays that each name the one before twice
    /// stand for 2^n objects (a hang, then all memory).
    static let maximumExpandedObjects = 1_000_000
    static let maximumExpandedBytes = 256 << 20

    /// Why following every reference would make too much, or `nil`. An iterative depth-first
    /// walk (a deep list must not exhaust the stack) that counts each object once with what it
    /// stands for; a cycle is left for Foundation to refuse.
    private static func expansionRefusal(_ bytes: [UInt8], offsets: [Int?], referenceSize: Int) -> String? {
        guard (1...8).contains(referenceSize) else { return "the binary property list's reference size is not 1 to 8 bytes" }
        // Per object: nil until walked; then (objects, bytes) it stands for, saturated.
        var expanded = [(objects: Int, bytes: Int)?](repeating: nil, count: offsets.count)
        var onPath = [Bool](repeating: false, count: offsets.count)
        for root in offsets.indices where expanded[root] == nil {
            var stack: [(object: Int, children: [Int], next: Int, total: (objects: Int, bytes: Int))] = []
            func push(_ object: Int) {
                let (payload, children) = Self.contents(of: offsets[object], in: bytes, referenceSize: referenceSize, objectCount: offsets.count)
                onPath[object] = true
                stack.append((object, children, 0, (1, payload)))
            }
            push(root)
            while var top = stack.popLast() {
                if top.next < top.children.count {
                    let child = top.children[top.next]
                    top.next += 1
                    if let done = expanded[child] {
                        top.total = Self.adding(top.total, done)
                        stack.append(top)
                    } else if onPath[child] {
                        stack.append(top)
                    } else {
                        stack.append(top)
                        push(child)
                    }
                    continue
                }
                onPath[top.object] = false
                expanded[top.object] = top.total
                if top.total.objects > Self.maximumExpandedObjects || top.total.bytes > Self.maximumExpandedBytes {
                    return "the binary property list stands for more than \(Self.maximumExpandedObjects) objects or "
                        + "\(Self.maximumExpandedBytes >> 20) MiB once its shared references are followed"
                }
                if var parent = stack.popLast() {
                    parent.total = Self.adding(parent.total, top.total)
                    stack.append(parent)
                }
            }
        }
        return nil
    }

    private static func adding(_ a: (objects: Int, bytes: Int), _ b: (objects: Int, bytes: Int)) -> (objects: Int, bytes: Int) {
        (min(a.objects + b.objects, Self.maximumExpandedObjects + 1), min(a.bytes + b.bytes, Self.maximumExpandedBytes + 1))
    }

    /// The bytes of string or data an object holds, and the objects an array or dictionary
    /// refers to (references past the table are Foundation's to refuse, and skipped).
    private static func contents(of offset: Int?, in bytes: [UInt8], referenceSize: Int, objectCount: Int) -> (payload: Int, children: [Int]) {
        guard let offset else { return (0, []) }
        let marker = bytes[offset]
        let kind = marker >> 4
        var count = Int(marker & 0x0F)
        var start = offset + 1
        if count == 0x0F, [0x4, 0x5, 0x6, 0x7, 0xA, 0xD].contains(kind) {
            guard offset + 1 < bytes.count, bytes[offset + 1] >> 4 == 0x1, bytes[offset + 1] & 0x0F <= 3 else { return (0, []) }
            let size = 1 << Int(bytes[offset + 1] & 0x0F)
            guard let value = Self.bigEndian(bytes, at: offset + 2, size: size), value <= UInt64(bytes.count) else { return (0, []) }
            count = Int(value)
            start = offset + 2 + size
        }
        switch kind {
        case 0x4, 0x5, 0x7: return (count, [])
        case 0x6: return (count * 2, [])
        case 0xA, 0xD:
            let references = kind == 0xA ? count : count * 2
            guard references <= (bytes.count - start) / referenceSize else { return (0, []) }
            var children: [Int] = []
            children.reserveCapacity(references)
            for index in 0..<references {
                if let child = Self.bigEndian(bytes, at: start + index * referenceSize, size: referenceSize), child < UInt64(objectCount) {
                    children.append(Int(child))
                }
            }
            return (0, children)
        default: return (0, [])
        }
    }

    /// The unsigned big-endian integer of `size` bytes at `offset`, or `nil` past the end.
    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64? {
        guard (1...8).contains(size), offset >= 0, offset <= bytes.count - size else { return nil }
        return bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
