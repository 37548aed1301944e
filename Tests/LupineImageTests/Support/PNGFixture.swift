/// Whole PNG files of any colour type, bit depth and interlacing, written as the PNG
/// specification lays them out, with the pixel data in stored (uncompressed) deflate blocks: the
/// test chooses every sample, so it knows every pixel a decoder must give back.
struct PNGFixture {
    /// PNG colour types.
    enum ColorType: UInt8 {
        case gray = 0
        case rgb = 2
        case palette = 3
        case grayAlpha = 4
        case rgba = 6

        /// Samples per pixel.
        var samples: Int {
            switch self {
            case .gray, .palette: return 1
            case .grayAlpha: return 2
            case .rgb: return 3
            case .rgba: return 4
            }
        }
    }

    let width: Int
    let height: Int
    let colorType: ColorType
    /// Bits per sample: 1, 2, 4, 8 or 16, as the colour type allows.
    let bitDepth: Int
    /// Adam7 instead of rows in order.
    var interlaced = false
    /// Chunks placed between IHDR and IDAT (PLTE, tRNS, gAMA, …), already encoded.
    var chunks: [UInt8] = []
    /// The samples of the pixel at (x, y), each below 2^bitDepth.
    let samples: (Int, Int) -> [Int]

    /// The Adam7 passes: first column and row, then the steps between them.
    private static let adam7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

    /// The encoded file.
    var bytes: [UInt8] {
        let header =
            ImageFixtures.bigEndian(self.width, 4) + ImageFixtures.bigEndian(self.height, 4)
            + [UInt8(self.bitDepth), self.colorType.rawValue, 0, 0, self.interlaced ? 1 : 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ImageFixtures.pngChunk("IHDR", header) + self.chunks
            + ImageFixtures.pngChunk("IDAT", Self.zlibStored(self.scanlines)) + ImageFixtures.pngChunk("IEND", [])
    }

    /// The filtered (filter type 0) rows of every pass, or of the whole image.
    private var scanlines: [UInt8] {
        guard self.interlaced else { return self.rows(x: 0, y: 0, dx: 1, dy: 1) }
        return Self.adam7.flatMap { self.rows(x: $0.0, y: $0.1, dx: $0.2, dy: $0.3) }
    }

    /// The rows of the sub-image starting at (x, y) taking every dx-th column and dy-th row;
    /// nothing when it is empty.
    private func rows(x: Int, y: Int, dx: Int, dy: Int) -> [UInt8] {
        let columns = Array(stride(from: x, to: self.width, by: dx))
        guard !columns.isEmpty else { return [] }
        var bytes: [UInt8] = []
        for row in stride(from: y, to: self.height, by: dy) {
            bytes.append(0)
            var bits = BitPacker()
            for column in columns {
                for sample in self.samples(column, row) { bits.append(sample, width: self.bitDepth) }
            }
            bytes += bits.bytes
        }
        return bytes
    }

    /// `data` as a zlib stream of stored blocks, with its Adler-32.
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(start + 65535, data.count)
            let length = end - start
            out += [end == data.count ? 1 : 0] + ImageFixtures.littleEndian(length, 2) + ImageFixtures.littleEndian(~length & 0xFFFF, 2)
            out += data[start..<end]
            start = end
        } while start < data.count
        var a = 1
        var b = 0
        for byte in data {
            a = (a + Int(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + ImageFixtures.bigEndian(b << 16 | a, 4)
    }
}

/// Samples packed most significant bit first, a row ending on a byte boundary.
private struct BitPacker {
    private(set) var bytes: [UInt8] = []
    private var used = 8

    mutating func append(_ value: Int, width: Int) {
        if width >= 8 {
            self.bytes += ImageFixtures.bigEndian(value, width / 8)
            return
        }
        if self.used + width > 8 {
            self.bytes.append(0)
            self.used = 0
        }
        self.used += width
        self.bytes[self.bytes.count - 1] |= UInt8(value << (8 - self.used))
    }
}
