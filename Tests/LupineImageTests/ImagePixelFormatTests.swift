import Lupine
import LupineImage
import Testing

/// Every PNG colour type and bit depth, interlaced or not, and JPEGs of one, three and four
/// components (CMYK, YCCK) decode to the RGBA8 pixels their samples mean: built by the test
/// sample by sample (PNGFixture, JPEGFixture), so each expected pixel is known exactly. The
/// Linux codecs only: ImageIO manages colour and premultiplies alpha, so its pixels differ.
@Suite struct ImagePixelFormatTests {
    #if ImageDecoding && !canImport(ImageIO)
    static func decoded(_ bytes: [UInt8]) throws -> DecodedImage {
        let image = try ImageResponseSerializer(automaticallyInflatesResponseImage: true).image(from: bytes)
        let decoded = try #require(image.decoded)
        #expect((decoded.width, decoded.height) == (image.pixelWidth, image.pixelHeight))
        #expect(decoded.byteCount == decoded.width * decoded.height * 4)
        return decoded
    }

    /// The RGBA of every pixel of a `width × height` image, row by row.
    static func expected(_ width: Int, _ height: Int, _ pixel: (Int, Int) -> [UInt8]) -> [UInt8] {
        (0..<height).flatMap { y in (0..<width).flatMap { x in pixel(x, y) } }
    }

    @Test(arguments: [false, true])
    func eightBitRGBAIsCopiedAsIs(interlaced: Bool) throws {
        let color = { (x: Int, y: Int) in [x * 19 % 256, y * 23 % 256, (x + y) * 7 % 256, 255 - x * y % 256] }
        let png = PNGFixture(width: 13, height: 11, colorType: .rgba, bitDepth: 8, interlaced: interlaced, samples: color)
        #expect(try Self.decoded(png.bytes).rgba == Self.expected(13, 11) { color($0, $1).map(UInt8.init) })
    }

    @Test(arguments: [false, true])
    func sixteenBitSamplesWithoutGammaAreSRGBNotLinear(interlaced: Bool) throws {
        // 0x8080 is 128/255 of the range: mid-grey, as every viewer shows it (libpng's default
        // reads 16-bit samples as linear light and made it 186).
        let gray = PNGFixture(width: 9, height: 9, colorType: .gray, bitDepth: 16, interlaced: interlaced) { x, _ in [(x * 32 % 256) * 257] }
        #expect(try Self.decoded(gray.bytes).rgba == Self.expected(9, 9) { x, _ in [UInt8(x * 32 % 256), UInt8(x * 32 % 256), UInt8(x * 32 % 256), 255] })
        let rgba = PNGFixture(width: 3, height: 2, colorType: .rgba, bitDepth: 16) { x, y in [128 * 257, 64 * 257, x * 100 * 257, (255 - y * 127) * 257] }
        #expect(try Self.decoded(rgba.bytes).rgba == Self.expected(3, 2) { x, y in [128, 64, UInt8(x * 100), UInt8(255 - y * 127)] })
        let rgb = PNGFixture(width: 2, height: 1, colorType: .rgb, bitDepth: 16) { x, _ in [0x8080, 0x4040, x == 0 ? 0 : 0xFFFF] }
        #expect(try Self.decoded(rgb.bytes).rgba == [128, 64, 0, 255, 128, 64, 255, 255])
    }

    @Test(arguments: [1, 2, 4, 8])
    func grayOfEveryDepthIsScaledToEightBits(bitDepth: Int) throws {
        let levels = 1 << bitDepth
        let png = PNGFixture(width: 11, height: 3, colorType: .gray, bitDepth: bitDepth, interlaced: bitDepth == 2) { x, y in [(x + y) % levels] }
        let expected = Self.expected(11, 3) { x, y in
            let level = UInt8((x + y) % levels * 255 / (levels - 1))
            return [level, level, level, 255]
        }
        #expect(try Self.decoded(png.bytes).rgba == expected)
    }

    @Test func grayWithAlphaAndGrayWithATransparentLevel() throws {
        let grayAlpha = PNGFixture(width: 2, height: 1, colorType: .grayAlpha, bitDepth: 8) { x, _ in [100, x == 0 ? 50 : 255] }
        #expect(try Self.decoded(grayAlpha.bytes).rgba == [100, 100, 100, 50, 100, 100, 100, 255])
        var keyed = PNGFixture(width: 2, height: 1, colorType: .gray, bitDepth: 8) { x, _ in [x == 0 ? 7 : 200] }
        keyed.chunks = ImageFixtures.pngChunk("tRNS", [0, 7])
        #expect(try Self.decoded(keyed.bytes).rgba == [7, 7, 7, 0, 200, 200, 200, 255])
    }

    @Test(arguments: [2, 8])
    func aPaletteWithAShorterTransparencyTableIsExpanded(bitDepth: Int) throws {
        var png = PNGFixture(width: 5, height: 2, colorType: .palette, bitDepth: bitDepth, interlaced: bitDepth == 8) { x, y in [(x + y) % 3] }
        // Red half transparent, green a quarter, blue opaque (tRNS stops after two entries).
        png.chunks = ImageFixtures.pngChunk("PLTE", [255, 0, 0, 0, 255, 0, 0, 0, 255]) + ImageFixtures.pngChunk("tRNS", [128, 64])
        let palette: [[UInt8]] = [[255, 0, 0, 128], [0, 255, 0, 64], [0, 0, 255, 255]]
        #expect(try Self.decoded(png.bytes).rgba == Self.expected(5, 2) { x, y in palette[(x + y) % 3] })
    }

    @Test func grayAndYCbCrJPEGsDecodeToTheirLevels() throws {
        #expect(try Self.decoded(JPEGFixture.constant(width: 8, height: 8, values: [77])).pixel(3, 3) == [77, 77, 77, 255])
        let ycc = try Self.decoded(JPEGFixture.constant(width: 16, height: 9, values: [100, 128, 128]))
        #expect(ycc.rgba == Self.expected(16, 9) { _, _ in [100, 100, 100, 255] })
    }

    /// CMYK JPEGs (Adobe's inverted samples: 255 is no ink), which TurboJPEG converts to no RGB
    /// format: red (no cyan, full magenta and yellow, no black) and a half black.
    @Test(arguments: [nil, UInt8(0)])
    func cmykJPEGsDecodeToRGB(adobeTransform: UInt8?) throws {
        let red = try Self.decoded(JPEGFixture.constant(width: 16, height: 8, values: [255, 0, 0, 255], adobeTransform: adobeTransform))
        #expect(red.rgba == Self.expected(16, 8) { _, _ in [255, 0, 0, 255] })
        let grey = try Self.decoded(JPEGFixture.constant(width: 8, height: 8, values: [255, 255, 255, 128], adobeTransform: adobeTransform))
        #expect(grey.pixel(7, 7) == [128, 128, 128, 255])
    }

    @Test func ycckJPEGsDecodeToRGB() throws {
        // Y 200 with neutral chroma is inverted cyan, magenta and yellow of 55 each; no black.
        let ycck = try Self.decoded(JPEGFixture.constant(width: 8, height: 8, values: [200, 128, 128, 255], adobeTransform: 2))
        #expect(ycck.pixel(0, 0) == [55, 55, 55, 255])
    }
    #endif
}
