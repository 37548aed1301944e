/// Whole JPEG files built segment by segment as ITU T.81 lays them out, with Huffman tables small
/// enough to write the entropy-coded data by hand: every block holds only its DC coefficient
/// (all quantisation steps 1), so each component of each pixel decodes to a value the test chose.
enum JPEGFixture {
    /// A baseline JPEG of `width × height` whose components (one sample each per pixel, no
    /// subsampling) are the constant `values`; with `adobeTransform` an Adobe APP14 segment says
    /// how four components are coded (0: CMYK, 2: YCCK).
    static func constant(width: Int, height: Int, values: [Int], adobeTransform: UInt8? = nil) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        if let adobeTransform {
            let adobe: [UInt8] = [0, 100, 0, 0, 0, 0, adobeTransform]
            bytes += segment(0xEE, ImageFixtures.ascii("Adobe") + adobe)
        }
        bytes += Self.unitQuantisation
        bytes += frame(0xC0, width: width, height: height, components: values.count)
        // DC table 0: categories 0 to 11, four-bit codes 0000 to 1011. AC table 0: EOB only, code 0.
        bytes += huffmanTable(0x00, codeLengthCounts: [0, 0, 0, 12], symbols: Array(0...11))
        bytes += huffmanTable(0x10, codeLengthCounts: [1], symbols: [0x00])
        let components: [UInt8] = (0..<values.count).flatMap { [UInt8($0 + 1), 0x00] }
        bytes += segment(0xDA, [UInt8(values.count)] + components + [0, 63, 0])
        var bits = EntropyBits()
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        for block in 0..<blocks {
            for value in values {
                // The first block's DC difference sets the level (an 8×8 IDCT divides DC by 8);
                // every later one repeats it.
                let difference = block == 0 ? (value - 128) * 8 : 0
                let category = difference == 0 ? 0 : Int.bitWidth - abs(difference).leadingZeroBitCount
                bits.append(category, width: 4)
                bits.append(difference >= 0 ? difference : difference + (1 << category) - 1, width: category)
                bits.append(0, width: 1)  // EOB
            }
        }
        return bytes + bits.finished() + [0xFF, 0xD9]
    }

    /// A progressive grayscale JPEG of `side × side` (a multiple of 8, its block count a power of
    /// two) that is all mid-grey, in a valid but needlessly long progression: a DC scan, then every
    /// AC coefficient on its own in fourteen successive-approximation scans, 883 scans in all.
    /// Each scan costs a pass over every block, so the scans, not the bytes, make the work.
    static func manyScans(side: Int) -> [UInt8] {
        let blocks = (side / 8) * (side / 8)
        let runBits = min(Int.bitWidth - 1 - blocks.leadingZeroBitCount, 14)
        var bytes: [UInt8] = [0xFF, 0xD8] + Self.unitQuantisation
        bytes += frame(0xC2, width: side, height: side, components: 1)
        bytes += huffmanTable(0x00, codeLengthCounts: [1], symbols: [0x00])  // DC: category 0, code 0
        bytes += huffmanTable(0x10, codeLengthCounts: [1], symbols: [UInt8(runBits << 4)])  // AC: EOBn, code 0
        var dc = EntropyBits()
        for _ in 0..<blocks { dc.append(0, width: 1) }
        bytes += segment(0xDA, [1, 1, 0x00, 0, 0, 0x00]) + dc.finished()
        for coefficient in UInt8(1)...63 {
            for low in (0...13).reversed() {
                let high = low == 13 ? 0 : low + 1
                var run = EntropyBits()
                for _ in 0..<(blocks >> runBits) {
                    run.append(0, width: 1)
                    run.append(0, width: runBits)
                }
                let scan: [UInt8] = [1, 1, 0x00, coefficient, coefficient, UInt8(high << 4 | low)]
                bytes += segment(0xDA, scan) + run.finished()
            }
        }
        return bytes + [0xFF, 0xD9]
    }

    private static func frame(_ marker: UInt8, width: Int, height: Int, components: Int) -> [UInt8] {
        let specs: [UInt8] = (0..<components).flatMap { [UInt8($0 + 1), 0x11, 0] }
        let size: [UInt8] = ImageFixtures.bigEndian(height, 2) + ImageFixtures.bigEndian(width, 2)
        return segment(marker, [8] + size + [UInt8(components)] + specs)
    }

    /// Table 0, every step 1.
    private static let unitQuantisation: [UInt8] = segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))

    /// A DHT segment: class and identifier, how many codes of each length from 1 bit (the rest
    /// of the 16 none), and the symbols in code order.
    private static func huffmanTable(_ classAndIdentifier: UInt8, codeLengthCounts: [UInt8], symbols: [UInt8]) -> [UInt8] {
        let counts: [UInt8] = codeLengthCounts + [UInt8](repeating: 0, count: 16 - codeLengthCounts.count)
        return segment(0xC4, [classAndIdentifier] + counts + symbols)
    }

    private static func segment(_ marker: UInt8, _ content: [UInt8]) -> [UInt8] {
        [0xFF, marker] + ImageFixtures.bigEndian(content.count + 2, 2) + content
    }
}

/// Entropy-coded bits, most significant first, padded with ones and with every `FF` stuffed.
private struct EntropyBits {
    private var bits: [Bool] = []

    mutating func append(_ value: Int, width: Int) {
        for shift in stride(from: width - 1, through: 0, by: -1) { self.bits.append(value >> shift & 1 == 1) }
    }

    func finished() -> [UInt8] {
        let padded = self.bits + Array(repeating: true, count: (8 - self.bits.count % 8) % 8)
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: padded.count, by: 8) {
            let byte = padded[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
            bytes += byte == 0xFF ? [0xFF, 0x00] : [byte]
        }
        return bytes
    }
}
