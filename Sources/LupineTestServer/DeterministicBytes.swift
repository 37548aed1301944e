/// The byte pattern served by `/bytes/:n` and `/stream-bytes/:n`, so clients can verify what they
/// received, including a slice fetched with `Range`.
///
/// Byte `i` of every such body is
/// `UInt8(truncatingIfNeeded: (i &+ (i >> 8) &+ (i >> 16) &+ (i >> 24)) &* 31 &+ 7)`.
/// The shifted terms make blocks of 256 bytes differ from one another, so a body served from the
/// wrong offset does not verify.
public enum DeterministicBytes {
    /// Byte `index` of the pattern.
    public static func byte(at index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: (index &+ (index >> 8) &+ (index >> 16) &+ (index >> 24)) &* 31 &+ 7)
    }

    /// The bytes at `range` of the pattern.
    public static func bytes(in range: Range<Int>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(range.count)
        forEachRun(in: range) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Calls `body` with consecutive runs of the pattern that together cover `range`.
    ///
    /// Within an aligned block of 256 bytes the pattern is a rotation of `table`, so each run is a
    /// slice copied from it rather than computed byte by byte.
    public static func forEachRun(in range: Range<Int>, _ body: (ArraySlice<UInt8>) -> Void) {
        var index = range.lowerBound
        while index < range.upperBound {
            let block = index >> 8
            let rotation = (block &+ (block >> 8) &+ (block >> 16)) & 0xFF
            let offset = index & 0xFF
            let count = min(256 - offset, range.upperBound - index)
            let start = (offset + rotation) & 0xFF
            body(table[start..<(start + count)])
            index += count
        }
    }

    /// `byte(at:)` for 0..<256, twice over so any rotation is one contiguous slice.
    private static let table: [UInt8] = (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
}
