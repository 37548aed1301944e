import Foundation
import Lupine
import LupineImage
import Testing

/// Whole images, not just headers, mutated and cut and handed to the codecs: every outcome is
/// an image whose pixels match its header or a typed image error, never a crash or a hang; and
/// files that are valid but costly or unusual (thousands of progressive scans, an animation,
/// an absurd canvas) are refused or kept undecoded instead of failing or running for minutes.
@Suite(.timeLimit(.minutes(5))) struct ImageDecodingHostileTests {
    /// Decodes, with a pixel limit small enough that a mutated size allocates little.
    static let serializer = ImageResponseSerializer(automaticallyInflatesResponseImage: true, maximumPixelCount: 1 << 16)

    /// The image of `bytes`, or its image failure; anything else is recorded as an issue.
    static func outcome(_ bytes: [UInt8], _ label: @autoclosure () -> String) -> Result<Image, LupineError>? {
        do {
            let image = try Self.serializer.image(from: bytes)
            if let decoded = image.decoded {
                let consistent = (decoded.width, decoded.height) == (image.pixelWidth, image.pixelHeight) && decoded.byteCount == decoded.width * decoded.height * 4
                #expect(consistent, "\(label()): header \(image.pixelWidth)×\(image.pixelHeight), pixels \(decoded.width)×\(decoded.height)")
            }
            return .success(image)
        } catch {
            var typed = error.imageFailure != nil
            if case .responseSerializationFailed(.inputDataNilOrZeroLength) = error { typed = true }
            #expect(typed, "\(label()): \(error)")
            return .failure(error)
        }
    }

    /// The test server's images and ones of each PNG kind.
    static func samples() async throws -> [(String, [UInt8])] {
        let served = try await withImageServer { _, manager in
            [("PNG", try await manager.bytes("/image/png")), ("JPEG", try await manager.bytes("/image/jpeg")), ("WebP", try await manager.bytes("/image/webp"))]
        }
        let palette = PNGFixture(width: 7, height: 5, colorType: .palette, bitDepth: 4, chunks: ImageFixtures.pngChunk("PLTE", Array(0..<48)) + ImageFixtures.pngChunk("tRNS", [9])) {
            x, y in [(x * y) % 16]
        }
        let interlaced = PNGFixture(width: 9, height: 7, colorType: .rgb, bitDepth: 16, interlaced: true) { x, y in [x * 4000, y * 5000, 77] }
        return served + [
            ("palette PNG", palette.bytes), ("interlaced PNG", interlaced.bytes),
            ("CMYK JPEG", JPEGFixture.constant(width: 16, height: 16, values: [10, 200, 30, 250], adobeTransform: 0)),
            ("animated WebP", Self.animatedWebP),
        ]
    }

    @Test func everyCutOfEveryImageIsAnImageOrATypedError() async throws {
        for (name, bytes) in try await Self.samples() {
            for length in 0..<bytes.count {
                _ = Self.outcome(Array(bytes.prefix(length)), "\(name) cut at \(length)")
            }
        }
    }

    /// The decoded images, and the headers of every format (ImageHeaderHostileTests' fixtures),
    /// whose lengths and offsets a mutation turns into anything.
    @Test func twoThousandMutationsOfEachImageAreImagesOrTypedErrors() async throws {
        var generator = SplitMix64(seed: 0x1_5EED)
        for (name, bytes) in try await Self.samples() + ImageHeaderHostileTests.fixtures {
            for round in 0..<2000 {
                var mutated = bytes
                for _ in 0...(generator.next() % 4) {
                    // Half the changes land in the first 64 bytes, where the headers are.
                    let span = generator.next() % 2 == 0 ? min(64, mutated.count) : mutated.count
                    let index = Int(generator.next() % UInt64(span))
                    switch generator.next() % 4 {
                    case 0: mutated[index] ^= 1 << UInt8(generator.next() % 8)
                    case 1: mutated[index] = UInt8(truncatingIfNeeded: generator.next())
                    case 2: mutated[index] = [0x00, 0xFF, 0x7F, 0x80][Int(generator.next() % 4)]
                    default: mutated.removeSubrange(index..<min(mutated.count, index + Int(generator.next() % 8) + 1))
                    }
                    if mutated.isEmpty { break }
                }
                _ = Self.outcome(mutated, "\(name) mutation \(round)")
            }
        }
    }

    #if ImageDecoding || canImport(ImageIO)
    @Test func corruptPixelDataAndChecksumsAreDecodingErrors() throws {
        let png = PNGFixture(width: 4, height: 4, colorType: .rgba, bitDepth: 8) { x, y in [x, y, 0, 255] }.bytes
        let idat = try #require(png.indices.first { png[$0..<$0 + 4].elementsEqual("IDAT".utf8) })
        var badChecksum = png
        badChecksum[idat + 4 + 70] ^= 0x40  // a pixel byte: the chunk's CRC no longer matches
        var badStream = png
        badStream[idat + 4] = 0x77  // the zlib header: not deflate
        for (name, bytes) in [("CRC", badChecksum), ("zlib", badStream)] {
            let reason = ImageHeaderTests.reason { _ = try Self.serializer.image(from: bytes) }
            guard case .decodingFailed(format: "PNG", _) = reason else {
                Issue.record("a bad \(name) is a decoding failure, not \(String(describing: reason))")
                continue
            }
        }
    }

    @Test func aJPEGWithAFrameButNoScanIsADecodingError() throws {
        let whole = JPEGFixture.constant(width: 8, height: 8, values: [50])
        let scan = try #require(whole.indices.first { whole[$0] == 0xFF && whole[$0 + 1] == 0xDA })
        let frameOnly = Array(whole[..<scan]) + [0xFF, 0xD9]
        let reason = ImageHeaderTests.reason { _ = try Self.serializer.image(from: frameOnly) }
        guard case .decodingFailed(format: "JPEG", _) = reason else {
            Issue.record("no scan is a decoding failure, not \(String(describing: reason))")
            return
        }
    }
    #endif

    #if ImageDecoding && !canImport(ImageIO)
    @Test func aProgressiveJPEGOfMoreThan500ScansIsRefused() throws {
        // 883 scans in a valid progression: decoded, each would be a pass over every block.
        let reason = ImageHeaderTests.reason { _ = try Self.serializer.image(from: JPEGFixture.manyScans(side: 16)) }
        #expect(reason == .decodingFailed(format: "JPEG", reason: "Progressive JPEG image has more than 500 scans"))
    }

    /// Files of a few dozen bytes declaring 10000×10000, within the default limit, whose data ends
    /// at once: the 400 MB of pixels are asked for, but the memory is committed only as the codec
    /// writes it, so the process's peak grows by little. (The peak is the whole process's, so an
    /// attempt that another test's allocation spoils is tried again, three at most.)
    @Test func aTinyFileDeclaring100MegapixelsCommitsLittleMemory() throws {
        let files: [(String, [UInt8])] = [
            ("PNG", ImageFixtures.png(width: 10_000, height: 10_000, pixelData: [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
            ("JPEG", ImageFixtures.jpeg(width: 10_000, height: 10_000, frameMarker: 0xC0)),
            ("WEBP", ImageFixtures.webpLossless(width: 10_000, height: 10_000) + [1, 2, 3, 4]),
        ]
        let serializer = ImageResponseSerializer(automaticallyInflatesResponseImage: true)
        for (format, bytes) in files {
            var growths: [Int] = []
            for _ in 0..<3 where growths.allSatisfy({ $0 >= 100 << 20 }) {
                try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)  // peak := now
                let before = try Self.residentBytes("VmRSS:")
                let reason = ImageHeaderTests.reason { _ = try serializer.image(from: bytes) }
                growths.append(try Self.residentBytes("VmHWM:") - before)
                guard case .decodingFailed(format: format, _) = reason else {
                    Issue.record("\(format): \(String(describing: reason))")
                    break
                }
            }
            #expect(growths.contains { $0 < 100 << 20 }, "\(format): the peak grew by \(growths) bytes")
        }
    }

    /// A `VmRSS:` or `VmHWM:` line of `/proc/self/status`, in bytes.
    static func residentBytes(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field) })
        return try #require(Int(line.dropFirst(field.count).filter(\.isNumber))) * 1024
    }

    @Test func anAnimatedWebPKeepsItsBytesAndSizeUndecoded() throws {
        let image = try ImageResponseSerializer(automaticallyInflatesResponseImage: true).image(from: Self.animatedWebP)
        #expect((image.format, image.pixelWidth, image.pixelHeight) == (.webp, 2, 2))
        #expect(image.decoded == nil)
    }
    #endif

    @Test func anAbsurdWebPCanvasIsRefusedBeforeDecoding() {
        let canvas = ImageFixtures.webpExtended(width: 1 << 24, height: 1 << 24)
        let reason = ImageHeaderTests.reason { _ = try ImageResponseSerializer(automaticallyInflatesResponseImage: true).image(from: canvas) }
        #expect(reason == .tooManyPixels(format: "WEBP", width: 1 << 24, height: 1 << 24, limit: 100_000_000))
    }

    /// A 2×2 animated WebP as libwebp's animation encoder writes it: a VP8X chunk (animation
    /// flag), ANIM, then two ANMF frames of 100 ms, each a lossless bitstream of one colour (red,
    /// then blue, which is blended over the red).
    static let animatedWebP: [UInt8] = {
        let vp8x = ImageFixtures.ascii("VP8X") + ImageFixtures.littleEndian(10, 4) + [0x02, 0, 0, 0] + ImageFixtures.littleEndian(1, 3) + ImageFixtures.littleEndian(1, 3)
        let anim = ImageFixtures.ascii("ANIM") + ImageFixtures.littleEndian(6, 4) + [0xFF, 0xFF, 0xFF, 0xFF, 0, 0]
        func frame(_ bitstream: [UInt8], blends: Bool) -> [UInt8] {
            let header = [0, 0, 0, 0, 0, 0] + ImageFixtures.littleEndian(1, 3) + ImageFixtures.littleEndian(1, 3) + ImageFixtures.littleEndian(100, 3) + [blends ? 0 : 2]
            let vp8l = ImageFixtures.ascii("VP8L") + ImageFixtures.littleEndian(bitstream.count, 4) + bitstream + (bitstream.count % 2 == 1 ? [0] : [])
            return ImageFixtures.ascii("ANMF") + ImageFixtures.littleEndian(header.count + vp8l.count, 4) + header + vp8l
        }
        let red: [UInt8] = [0x2F, 0x01, 0x40, 0x00, 0x00, 0x07, 0x10, 0xFD, 0x8F, 0xFE, 0x07, 0x22, 0xA2, 0xFF, 0x01]
        let blue: [UInt8] = [0x2F, 0x01, 0x40, 0x00, 0x00, 0x07, 0x10, 0xD1, 0xFF, 0xFE, 0x07, 0x22, 0xA2, 0xFF, 0x01]
        let chunks = vp8x + anim + frame(red, blends: false) + frame(blue, blends: true)
        return ImageFixtures.ascii("RIFF") + ImageFixtures.littleEndian(chunks.count + 4, 4) + ImageFixtures.ascii("WEBP") + chunks
    }()
}
