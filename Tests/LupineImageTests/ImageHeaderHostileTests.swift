import Lupine
import LupineImage
import Testing

/// Careless and malicious headers: every cut of every format, lengths and offsets that point
/// anywhere, and noise. Each is a typed error, never a crash, a hang or a read out of bounds.
@Suite struct ImageHeaderHostileTests {
    static let fixtures: [(String, [UInt8])] = [
        ("PNG", ImageFixtures.png(width: 850, height: 300)),
        ("JPEG", ImageFixtures.jpeg(width: 850, height: 300)),
        ("GIF", ImageFixtures.gif(width: 850, height: 300)),
        ("WebP", ImageFixtures.webpLossy(width: 850, height: 300)),
        ("WebP", ImageFixtures.webpLossless(width: 850, height: 300)),
        ("WebP", ImageFixtures.webpExtended(width: 850, height: 300)),
        ("BMP", ImageFixtures.bmp(width: 850, height: 300)),
        ("TIFF", ImageFixtures.tiff(width: 850, height: 300, bigEndianOrder: true, longs: true)),
        ("ICO", ImageFixtures.ico([(16, 16), (0, 0)])),
        ("AVIF", ImageFixtures.heif(brands: ["avif"], sizes: [(850, 300)])),
        ("HEIC", ImageFixtures.heif(brands: ["heic"], sizes: [(850, 300)])),
    ]

    @Test func everyCutOfEveryHeaderIsATypedError() {
        for (name, bytes) in Self.fixtures {
            let complete = try? ImageHeader(parsing: bytes)
            #expect(complete != nil, "\(name) parses whole")
            for length in 0..<bytes.count {
                do {
                    let header = try ImageHeader(parsing: Array(bytes.prefix(length)))
                    // Only what follows the size may be missing.
                    #expect(header == complete, "\(name) cut at \(length)")
                } catch {
                    let reason = error.imageFailure
                    let typed = reason == .unrecognizedFormat || reason == .truncatedHeader(format: name.uppercased())
                    #expect(typed, "\(name) cut at \(length): \(error)")
                }
            }
        }
    }

    @Test func lengthsAndOffsetsPointingAnywhereAreErrors() {
        var zeroLengthSegment = ImageFixtures.jpeg(width: 8, height: 8)
        zeroLengthSegment[4...5] = [0, 0]
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: zeroLengthSegment) } == .invalidHeader(format: "JPEG", reason: "a segment is 0 bytes long"))

        let farDirectory = Array("II".utf8) + [42, 0, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: farDirectory) } == .truncatedHeader(format: "TIFF"))
        let manyEntries = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0xFF, 0xFF] + Array(repeating: 0, count: 24)
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: manyEntries) } == .truncatedHeader(format: "TIFF"))

        let manyIcons: [UInt8] = [0, 0, 1, 0, 0xFF, 0xFF] + Array(repeating: 16, count: 32)
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: manyIcons) } == .truncatedHeader(format: "ICO"))
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: [0, 0, 1, 0, 0, 0]) } == .invalidHeader(format: "ICO", reason: "its directory has no images"))

        let negativeWidth = ImageFixtures.bmp(width: -5, height: 5)
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: negativeWidth) } == .invalidHeader(format: "BMP", reason: "its width is negative"))
    }

    @Test func isoBoxesOfImpossibleSizesAreErrors() {
        let ftyp = ImageFixtures.box("ftyp", Array("avif".utf8) + [0, 0, 0, 0])
        let tooShort = ftyp + ImageFixtures.bigEndian(3, 4) + Array("meta".utf8)
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: tooShort) } == .invalidHeader(format: "AVIF", reason: "the meta box is 3 bytes long"))
        let huge = ftyp + ImageFixtures.bigEndian(1, 4) + Array("meta".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: huge) } == .invalidHeader(format: "AVIF", reason: "the meta box is larger than any image"))
        let emptyMeta = ftyp + ImageFixtures.box("meta", [])
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: emptyMeta) } == .invalidHeader(format: "AVIF", reason: "its meta box has no version"))
        let noProperties = ftyp + ImageFixtures.box("meta", [0, 0, 0, 0] + ImageFixtures.box("hdlr", [])) + ImageFixtures.box("mdat", [1])
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: noProperties) } == .invalidHeader(format: "AVIF", reason: "it has no iprp box"))
        // A box that claims more than there is: the file was cut.
        let cut = ftyp + ImageFixtures.bigEndian(4000, 4) + Array("free".utf8)
        #expect(ImageHeaderTests.reason { _ = try ImageHeader(parsing: cut) } == .truncatedHeader(format: "AVIF"))
    }

    @Test func noiseAfterEveryMagicNumberIsATypedError() {
        var generator = SplitMix64(seed: 15)
        for (name, bytes) in Self.fixtures {
            let magicLength = name.hasPrefix("WebP") || name == "AVIF" || name == "HEIC" ? 12 : (name == "BMP" ? 2 : 4)
            for _ in 0..<300 {
                let noise = (0..<Int(generator.next() % 200)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                do {
                    let header = try ImageHeader(parsing: Array(bytes.prefix(magicLength)) + noise)
                    #expect(header.pixelWidth > 0 && header.pixelHeight > 0)
                } catch {
                    #expect(error.imageFailure != nil, "\(name): \(error)")
                }
            }
        }
    }
}

/// A small deterministic generator, so that a failure repeats.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var value = self.state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
