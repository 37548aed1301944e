import Lupine
import LupineImage
import Testing

/// The format and pixel size read from each format's header, without decoding, on headers built
/// byte by byte (ImageFixtures) at sizes each format's fields make interesting.
@Suite struct ImageHeaderTests {
    static func header(_ bytes: [UInt8]) throws -> ImageHeader {
        try ImageHeader(parsing: bytes)
    }

    @Test func pngSizeComesFromIHDR() throws {
        #expect(try Self.header(ImageFixtures.png(width: 850, height: 300)) == ImageHeader(format: .png, pixelWidth: 850, pixelHeight: 300))
    }

    @Test(arguments: [UInt8(0xC0), 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF])
    func jpegSizeComesFromEveryFrameMarkerAfterOtherSegments(marker: UInt8) throws {
        let header = try Self.header(ImageFixtures.jpeg(width: 1920, height: 1080, frameMarker: marker))
        #expect(header == ImageHeader(format: .jpeg, pixelWidth: 1920, pixelHeight: 1080))
    }

    @Test func gifSizeComesFromTheLogicalScreen() throws {
        #expect(try Self.header(ImageFixtures.gif(width: 500, height: 260)) == ImageHeader(format: .gif, pixelWidth: 500, pixelHeight: 260))
    }

    @Test func webpSizeComesFromEachBitstream() throws {
        #expect(try Self.header(ImageFixtures.webpLossy(width: 16383, height: 7)) == ImageHeader(format: .webp, pixelWidth: 16383, pixelHeight: 7))
        #expect(try Self.header(ImageFixtures.webpLossless(width: 16384, height: 1)) == ImageHeader(format: .webp, pixelWidth: 16384, pixelHeight: 1))
        #expect(try Self.header(ImageFixtures.webpExtended(width: 70000, height: 3)) == ImageHeader(format: .webp, pixelWidth: 70000, pixelHeight: 3))
    }

    @Test func bmpSizeIsTheAbsoluteHeightOfATopDownImage() throws {
        #expect(try Self.header(ImageFixtures.bmp(width: 640, height: 480)) == ImageHeader(format: .bmp, pixelWidth: 640, pixelHeight: 480))
        #expect(try Self.header(ImageFixtures.bmp(width: 640, height: -480)) == ImageHeader(format: .bmp, pixelWidth: 640, pixelHeight: 480))
        #expect(try Self.header(ImageFixtures.bmp(width: 33, height: 65535, core: true)) == ImageHeader(format: .bmp, pixelWidth: 33, pixelHeight: 65535))
    }

    @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
    func tiffSizeComesFromTheFirstDirectoryInEitherByteOrder(bigEndianOrder: Bool, longs: Bool) throws {
        let width = longs ? 70000 : 3000
        let bytes = ImageFixtures.tiff(width: width, height: 2000, bigEndianOrder: bigEndianOrder, longs: longs)
        #expect(try Self.header(bytes) == ImageHeader(format: .tiff, pixelWidth: width, pixelHeight: 2000))
    }

    @Test func icoSizeIsItsLargestEntryWithZeroMeaning256() throws {
        #expect(try Self.header(ImageFixtures.ico([(16, 16), (0, 0), (48, 48)])) == ImageHeader(format: .ico, pixelWidth: 256, pixelHeight: 256))
        #expect(try Self.header(ImageFixtures.ico([(32, 32)])) == ImageHeader(format: .ico, pixelWidth: 32, pixelHeight: 32))
    }

    @Test func avifAndHeicSizeIsTheLargestSpatialExtent() throws {
        let avif = ImageFixtures.heif(brands: ["avif", "mif1", "miaf"], sizes: [(320, 240), (4032, 3024)])
        #expect(try Self.header(avif) == ImageHeader(format: .avif, pixelWidth: 4032, pixelHeight: 3024))
        let heic = ImageFixtures.heif(brands: ["heic", "mif1"], sizes: [(512, 512)])
        #expect(try Self.header(heic) == ImageHeader(format: .heic, pixelWidth: 512, pixelHeight: 512))
        // A generic major brand: the compatible brands name the format.
        let generic = ImageFixtures.heif(brands: ["mif1", "heic"], sizes: [(1, 2)])
        #expect(try Self.header(generic) == ImageHeader(format: .heic, pixelWidth: 1, pixelHeight: 2))
        #expect(ImageFormat(sniffing: ImageFixtures.heif(brands: ["mif1", "avif", "heic"], sizes: [])) == .avif)
    }

    @Test func otherIsoFilesAndUnknownBytesAreNoFormat() {
        #expect(ImageFormat(sniffing: ImageFixtures.heif(brands: ["isom", "mp41"], sizes: [(1, 1)])) == nil)
        #expect(ImageFormat(sniffing: Array("<!DOCTYPE html><html>".utf8)) == nil)
        #expect(ImageFormat(sniffing: []) == nil)
        #expect(Self.reason { try Self.header(Array("{\"url\": 1}".utf8)) } == .unrecognizedFormat)
    }

    @Test func zeroSizesAreRefused() {
        #expect(Self.reason { try Self.header(ImageFixtures.png(width: 0, height: 0)) } == .emptyImage(format: "PNG", width: 0, height: 0))
        #expect(Self.reason { try Self.header(ImageFixtures.gif(width: 10, height: 0)) } == .emptyImage(format: "GIF", width: 10, height: 0))
        #expect(Self.reason { try Self.header(ImageFixtures.jpeg(width: 8, height: 0)) } == .emptyImage(format: "JPEG", width: 8, height: 0))
    }

    /// The image failure `body` throws, or `nil` when it throws none (or another error).
    static func reason(_ body: () throws -> Void) -> LupineError.ImageFailureReason? {
        do {
            try body()
            return nil
        } catch {
            return (error as? LupineError)?.imageFailure
        }
    }
}

extension LupineError {
    /// The image failure reason, if this is one.
    var imageFailure: LupineError.ImageFailureReason? {
        guard case .responseSerializationFailed(.imageSerializationFailed(let reason)) = self else { return nil }
        return reason
    }
}
