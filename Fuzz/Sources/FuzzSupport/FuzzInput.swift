/// The bytes libFuzzer hands a target, read as structured values: a target that builds
/// parameters, cookies or records from its input draws them from here, so that libFuzzer's
/// mutations of the bytes become mutations of the values.
///
/// Every read is total: when the bytes run out, a read gives zero, `false` or an empty value,
/// never a trap.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    /// The input of one run.
    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        self.bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// An input over `bytes`.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    public var isEmpty: Bool { self.index >= self.bytes.count }

    /// The next byte, or 0.
    public mutating func byte() -> UInt8 {
        guard self.index < self.bytes.count else { return 0 }
        defer { self.index += 1 }
        return self.bytes[self.index]
    }

    /// The next byte's low bit.
    public mutating func bool() -> Bool {
        self.byte() & 1 == 1
    }

    /// A number in `range`, from one byte (two for ranges wider than 256).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = range.upperBound - range.lowerBound + 1
        let raw = width > 256 ? Int(self.byte()) << 8 | Int(self.byte()) : Int(self.byte())
        return range.lowerBound + raw % width
    }

    /// The next `count` bytes, fewer when the input ends.
    public mutating func bytes(count: Int) -> [UInt8] {
        let end = min(self.bytes.count, self.index + max(0, count))
        defer { self.index = end }
        return Array(self.bytes[min(self.index, end)..<end])
    }

    /// A length-prefixed run of bytes: one byte of length (at most `maximum`), then the bytes.
    public mutating func chunk(maximum: Int = 64) -> [UInt8] {
        self.bytes(count: Int(self.byte()) % (maximum + 1))
    }

    /// A length-prefixed string, decoded as UTF-8 (invalid bytes become U+FFFD).
    public mutating func string(maximum: Int = 64) -> String {
        String(decoding: self.chunk(maximum: maximum), as: UTF8.self)
    }

    /// One of `choices`, which must not be empty.
    public mutating func pick<Element>(_ choices: [Element]) -> Element {
        choices[self.int(in: 0...(choices.count - 1))]
    }

    /// What remains.
    public mutating func rest() -> [UInt8] {
        self.bytes(count: self.bytes.count - self.index)
    }
}
