/// Image headers built byte by byte, as each format's specification lays them out: enough of
/// each file for its size to be read, with the size chosen by the test.
enum ImageFixtures {
    /// A PNG's signature and IHDR chunk (8-bit RGBA); with `pixelData`, an IDAT chunk of those
    /// bytes and the IEND chunk follow.
    static func png(width: Int, height: Int, pixelData: [UInt8]? = nil) -> [UInt8] {
        let header = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", bigEndian(width, 4) + bigEndian(height, 4) + [8, 6, 0, 0, 0])
        return header + (pixelData.map { pngChunk("IDAT", $0) + pngChunk("IEND", []) } ?? [])
    }

    /// A PNG chunk with its CRC-32.
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in ascii(type) + data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return bigEndian(data.count, 4) + ascii(type) + data + bigEndian(Int(~crc), 4)
    }

    /// A progressive JPEG whose frame header follows an APP0, an APP1 full of `FF` bytes, a
    /// comment, a quantisation table and fill bytes before its marker.
    static func jpeg(width: Int, height: Int, frameMarker: UInt8 = 0xC2) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xE0, ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        bytes += segment(0xE1, ascii("Exif") + [0, 0] + Array(repeating: 0xFF, count: 40) + [0xFF, 0xC0, 0x00, 0x11])
        bytes += segment(0xFE, ascii("a comment with \u{FF}\u{C0} in it"))
        bytes += segment(0xDB, [0] + Array(repeating: 1, count: 64))
        bytes += [0xFF, 0xFF, 0xFF]  // fill bytes before the next marker
        bytes += segment(frameMarker, [8] + bigEndian(height, 2) + bigEndian(width, 2) + [1, 1, 0x11, 0])
        return bytes + segment(0xDA, [1, 1, 0, 0, 63, 0]) + [0x12, 0x34, 0xFF, 0xD9]
    }

    static func gif(width: Int, height: Int) -> [UInt8] {
        ascii("GIF87a") + littleEndian(width, 2) + littleEndian(height, 2) + [0, 0, 0, 0x3B]
    }

    static func webpLossy(width: Int, height: Int) -> [UInt8] {
        riff(ascii("VP8 ") + littleEndian(10, 4) + [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A] + littleEndian(width, 2) + littleEndian(height, 2))
    }

    static func webpLossless(width: Int, height: Int) -> [UInt8] {
        let bits = (width - 1) | (height - 1) << 14
        return riff(ascii("VP8L") + littleEndian(5, 4) + [0x2F] + littleEndian(bits, 4))
    }

    static func webpExtended(width: Int, height: Int) -> [UInt8] {
        riff(ascii("VP8X") + littleEndian(10, 4) + [0x10, 0, 0, 0] + littleEndian(width - 1, 3) + littleEndian(height - 1, 3))
    }

    /// A BMP with a BITMAPINFOHEADER (signed sizes), or the OS/2 core header (`core`).
    static func bmp(width: Int, height: Int, core: Bool = false) -> [UInt8] {
        let file = ascii("BM") + littleEndian(0, 4) + [0, 0, 0, 0] + littleEndian(54, 4)
        if core {
            return file + littleEndian(12, 4) + littleEndian(width, 2) + littleEndian(height, 2) + [1, 0, 24, 0]
        }
        return file + littleEndian(40, 4) + littleEndian(width, 4) + littleEndian(height, 4) + [1, 0, 32, 0]
            + Array(repeating: 0, count: 24)
    }

    /// A TIFF whose first directory (after a padding byte) holds another tag, then the width
    /// and height, as LONGs or SHORTs.
    static func tiff(width: Int, height: Int, bigEndianOrder: Bool, longs: Bool) -> [UInt8] {
        func number(_ value: Int, _ length: Int) -> [UInt8] {
            bigEndianOrder ? bigEndian(value, length) : littleEndian(value, length)
        }
        func entry(_ tag: Int, _ value: Int) -> [UInt8] {
            let field = longs ? number(value, 4) : number(value, 2) + [0, 0]
            return number(tag, 2) + number(longs ? 4 : 3, 2) + number(1, 4) + field
        }
        let order: [UInt8] = bigEndianOrder ? ascii("MM") + [0, 42] : ascii("II") + [42, 0]
        return order + number(9, 4) + [0] + number(3, 2) + entry(254, 0) + entry(256, width) + entry(257, height) + number(0, 4)
    }

    /// An icon directory with one entry of each size (0 stands for 256).
    static func ico(_ sizes: [(UInt8, UInt8)]) -> [UInt8] {
        var bytes: [UInt8] = [0, 0, 1, 0] + littleEndian(sizes.count, 2)
        for (width, height) in sizes {
            bytes += [width, height, 0, 0] + littleEndian(1, 2) + littleEndian(32, 2) + littleEndian(40, 4) + littleEndian(0, 4)
        }
        return bytes
    }

    /// A HEIF file of `brands` (major first) with an `ispe` property for each size.
    static func heif(brands: [String], sizes: [(Int, Int)]) -> [UInt8] {
        let ftyp = box("ftyp", ascii(brands[0]) + [0, 0, 0, 0] + brands.dropFirst().flatMap(ascii))
        let properties = sizes.map { box("ispe", [0, 0, 0, 0] + bigEndian($0.0, 4) + bigEndian($0.1, 4)) }
        let ipco = box("ipco", box("colr", ascii("nclx") + [0, 1, 0, 1, 0, 1, 0]) + properties.flatMap { $0 })
        let meta = box("meta", [0, 0, 0, 0] + box("hdlr", Array(repeating: 0, count: 20)) + box("iprp", ipco))
        return ftyp + meta + box("mdat", [1, 2, 3])
    }

    static func box(_ type: String, _ content: [UInt8]) -> [UInt8] {
        bigEndian(content.count + 8, 4) + ascii(type) + content
    }

    static func ascii(_ text: String) -> [UInt8] { Array(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }) }

    static func bigEndian(_ value: Int, _ length: Int) -> [UInt8] {
        (0..<length).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    static func littleEndian(_ value: Int, _ length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    private static func segment(_ marker: UInt8, _ content: [UInt8]) -> [UInt8] {
        [0xFF, marker] + bigEndian(content.count + 2, 2) + content
    }

    private static func riff(_ chunks: [UInt8]) -> [UInt8] {
        ascii("RIFF") + littleEndian(chunks.count + 4, 4) + ascii("WEBP") + chunks
    }
}
