import Foundation
import Lupine
import LupineImage
import Testing

/// Decoding to RGBA8 through the platform's codecs: with the `ImageDecoding` trait on Linux
/// (libpng, TurboJPEG, libwebp), or ImageIO on Apple platforms. Known pixels of the test
/// server's images, a bomb refused before the codec allocates, and cut files.
@Suite struct ImageDecodingTests {
    #if ImageDecoding || canImport(ImageIO)
    @Test func thePNGsPixelsAreTheGradientItWasEncodedFrom() async throws {
        try await withImageServer { _, manager in
            let decoded = try #require(try await manager.image("/image/png").get().decoded)
            #expect((decoded.width, decoded.height, decoded.byteCount) == (16, 16, 16 * 16 * 4))
            #expect(decoded.pixel(0, 0) == [0, 0, 128, 255])
            #expect(decoded.pixel(5, 9) == [80, 144, 128, 255])
            #expect(decoded.pixel(15, 15) == [240, 240, 128, 255])
        }
    }

    @Test func theJPEGsPixelsAreWithinLossOfTheKnownOnes() async throws {
        try await withImageServer { _, manager in
            let decoded = try #require(try await manager.image("/image/jpeg").get().decoded)
            #expect((decoded.width, decoded.height) == (16, 16))
            // libjpeg-turbo's decoding of the server's JPEG; other IDCTs may differ by a few levels.
            for (x, y, expected) in [(0, 0, [2, 1, 118]), (15, 0, [223, 8, 129]), (8, 8, [128, 129, 131]), (15, 15, [237, 239, 140])] {
                let pixel = decoded.pixel(x, y)
                #expect(zip(pixel, expected).allSatisfy { abs(Int($0) - $1) <= 4 }, "(\(x), \(y)) is \(pixel)")
                #expect(pixel[3] == 255)
            }
        }
    }

    @Test func theLosslessWebPsPixelsAreExact() async throws {
        try await withImageServer { _, manager in
            let decoded = try #require(try await manager.image("/image/webp").get().decoded)
            #expect(decoded.pixel(3, 5) == [48, 175, 64, 255])
            #expect(decoded.pixel(12, 2) == [192, 223, 64, 128])
        }
    }

    @Test func aDecoderRefusesABombItsCodecReadsBeforeAllocating() throws {
        // A valid PNG header of 20000×20000 handed over as if it said 1×1: the decoder checks the
        // size libpng reads, not the caller's word, and refuses before allocating 1.6 GB.
        let bomb = ImageFixtures.png(width: 20_000, height: 20_000, pixelData: [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        let claimed = ImageHeader(format: .png, pixelWidth: 1, pixelHeight: 1)
        let reason = ImageHeaderTests.reason { _ = try ImageDecoder.decode(bomb, header: claimed, maximumPixelCount: 100_000_000) }
        #expect(reason == .tooManyPixels(format: "PNG", width: 20_000, height: 20_000, limit: 100_000_000))
    }

    /// Cut inside the pixel data: the PNG's IDAT (its IEND and CRCs are its last 16 bytes),
    /// the JPEG's entropy-coded scan (libjpeg's "premature end"), the WebP's bitstream.
    @Test(arguments: [("/image/png", 40), ("/image/jpeg", 12), ("/image/webp", 12)])
    func aCutImageIsADecodingError(path: String, dropped: Int) async throws {
        try await withImageServer { _, manager in
            let whole = try await manager.bytes(path)
            let serializer = ImageResponseSerializer(automaticallyInflatesResponseImage: true)
            let reason = ImageHeaderTests.reason { _ = try serializer.image(from: Array(whole.dropLast(dropped))) }
            guard case .decodingFailed = reason else {
                Issue.record("\(path) cut is a decoding failure, not \(String(describing: reason))")
                return
            }
        }
    }

    @Test func inflatingIsOnByDefaultAndCanBeTurnedOff() async throws {
        #expect(ImageDecoder.isAvailable)
        #expect(ImageResponseSerializer().automaticallyInflatesResponseImage)
        try await withImageServer { _, manager in
            let serializer = ImageResponseSerializer(automaticallyInflatesResponseImage: false)
            let image = try await manager.image("/image/png", serializer: serializer).get()
            #expect(image.decoded == nil)
        }
    }

    #else
    @Test func withoutACodecImagesKeepTheirBytesAndSizeOnly() async throws {
        #expect(!ImageDecoder.isAvailable)
        #expect(!ImageResponseSerializer().automaticallyInflatesResponseImage)
        try await withImageServer { _, manager in
            let image = try await manager.image("/image/png", serializer: ImageResponseSerializer(automaticallyInflatesResponseImage: true)).get()
            #expect(image.decoded == nil)
            #expect((image.pixelWidth, image.pixelHeight) == (16, 16))
        }
    }
    #endif
}
