import Lupine

/// PNG: the `IHDR` chunk, which must come first, holds the width and height (big-endian, at
/// most 2³¹ − 1 each).
enum PNGHeader {
    static func size(of header: HeaderBytes) throws(LupineError) -> (width: Int, height: Int) {
        guard try header.bigEndian(at: 8, length: 4) == 13, header.matches("IHDR", at: 12) else {
            if header.count < 16 { throw header.truncated }
            throw header.invalid("the first chunk is not a 13-byte IHDR")
        }
        let width = try header.bigEndian(at: 16, length: 4)
        let height = try header.bigEndian(at: 20, length: 4)
        guard width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw header.invalid("a dimension is larger than 2³¹ − 1")
        }
        return (width, height)
    }
}

/// GIF: the logical screen descriptor after the signature (little-endian 16-bit width, height).
enum GIFHeader {
    static func size(of header: HeaderBytes) throws(LupineError) -> (width: Int, height: Int) {
        (try header.littleEndian(at: 6, length: 2), try header.littleEndian(at: 8, length: 2))
    }
}

/// BMP: the DIB header after the 14-byte file header. The OS/2 1.x header (12 bytes) has
/// unsigned 16-bit sizes; every later one signed 32-bit sizes, where a negative height means
/// rows stored top-down (the image is as tall as its absolute value).
enum BMPHeader {
    private static let dibHeaderSizes: Set<Int> = [12, 16, 40, 52, 56, 64, 108, 124]

    static func size(of header: HeaderBytes) throws(LupineError) -> (width: Int, height: Int) {
        let dibSize = try header.littleEndian(at: 14, length: 4)
        guard Self.dibHeaderSizes.contains(dibSize) else {
            throw header.invalid("its DIB header has an unknown size of \(dibSize) bytes")
        }
        if dibSize == 12 {
            return (try header.littleEndian(at: 18, length: 2), try header.littleEndian(at: 20, length: 2))
        }
        let width = Int(Int32(truncatingIfNeeded: try header.littleEndian(at: 18, length: 4)))
        let height = Int(Int32(truncatingIfNeeded: try header.littleEndian(at: 22, length: 4)))
        guard width >= 0 else { throw header.invalid("its width is negative") }
        return (width, abs(height))
    }
}
