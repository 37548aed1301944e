/// The GIF served by `/image/gif`: 16×16 pixels in four colours (red, green, blue, white; the
/// pixel at (x, y) has colour `(x / 4 + y / 4) % 4`), encoded in code.
///
/// The LZW stream is the simplest valid one: a clear code before every two pixels, so the code
/// table never grows past its first 3-bit width and no compression happens.
enum GIFImage {
    static let width = 16
    static let height = 16
    static let palette: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]]

    /// The colour index of the pixel at (x, y).
    static func colorIndex(x: Int, y: Int) -> Int {
        (x / 4 + y / 4) % 4
    }

    /// The encoded image.
    static let sample: [UInt8] = {
        var gif = Array("GIF89a".utf8)
        gif += littleEndian(width) + littleEndian(height)
        gif += [0x91, 0, 0]  // a global table of 2^(1+1) colours, 2-bit resolution; background 0
        gif += palette.flatMap { $0 }
        gif += [0x2C] + littleEndian(0) + littleEndian(0) + littleEndian(width) + littleEndian(height) + [0]
        let minimumCodeSize = 2
        gif.append(UInt8(minimumCodeSize))
        let data = lzwCodes(minimumCodeSize: minimumCodeSize)
        for start in stride(from: 0, to: data.count, by: 255) {
            let block = data[start..<min(start + 255, data.count)]
            gif.append(UInt8(block.count))
            gif += block
        }
        gif += [0, 0x3B]  // end of the image data; trailer
        return gif
    }()

    /// The pixels as 3-bit codes, packed least significant bit first.
    private static func lzwCodes(minimumCodeSize: Int) -> [UInt8] {
        let clear = 1 << minimumCodeSize
        var codes: [Int] = []
        let pixels = (0..<height).flatMap { y in (0..<width).map { x in colorIndex(x: x, y: y) } }
        for start in stride(from: 0, to: pixels.count, by: 2) {
            codes.append(clear)
            codes += pixels[start..<min(start + 2, pixels.count)]
        }
        codes.append(clear + 1)  // end of information
        var bytes: [UInt8] = []
        var accumulator = 0
        var bits = 0
        for code in codes {
            accumulator |= code << bits
            bits += minimumCodeSize + 1
            while bits >= 8 {
                bytes.append(UInt8(accumulator & 0xFF))
                accumulator >>= 8
                bits -= 8
            }
        }
        if bits > 0 { bytes.append(UInt8(accumulator)) }
        return bytes
    }

    private static func littleEndian(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
    }
}
