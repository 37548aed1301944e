import Foundation
import Lupine
import LupineImage
import Testing

/// `ImageResponseSerializer` against the test server over loopback: its real PNG, JPEG, WebP and
/// GIF, and the bodies that are not images the serializer may accept.
@Suite struct ImageResponseSerializerTests {
    @Test(arguments: [
        ("/image/png", ImageFormat.png), ("/image/jpeg", .jpeg), ("/image/webp", .webp), ("/image/gif", .gif),
    ])
    func theServersImagesAreSniffedAndMeasured(path: String, format: ImageFormat) async throws {
        try await withImageServer { server, manager in
            let image = try await manager.image(path).get()
            #expect(image.format == format)
            #expect(image.pixelWidth == 16 && image.pixelHeight == 16)
            #expect(image.scale == 1)
            #expect(image.data == (try await manager.bytes(path)))
            #expect(server.requests(forPath: path) == 2)
        }
    }

    @Test func aPNGOfTheRequestedSizeIsARealOne() async throws {
        try await withImageServer { server, manager in
            let image = try await manager.image("/image/png?size=850x300").get()
            #expect((image.format, image.pixelWidth, image.pixelHeight) == (.png, 850, 300))
            if let decoded = image.decoded {
                #expect(decoded.width == 850 && decoded.byteCount == 850 * 300 * 4)
                #expect(decoded.pixel(849, 299) == [UInt8(truncatingIfNeeded: 849 * 16), UInt8(truncatingIfNeeded: 299 * 16), 128, 255])
            }
            #expect(server.requests(forPath: "/image/png?size=850x300") == 1)
            #expect(server.requests(forPath: "/image/png") == 0)
            let tooLarge = await manager.image("/image/png?size=5000x5000")
            guard case .responseValidationFailed(.unacceptableStatusCode(400, _, _, _)) = tooLarge.error else {
                Issue.record("an oversized request is refused, not \(tooLarge)")
                return
            }
        }
    }

    @Test func theScaleIsTheSerializers() async throws {
        try await withImageServer { _, manager in
            for (asked, given) in [(2.0, 2.0), (-1, 1), (.nan, 1), (.infinity, 1)] {
                let image = try await manager.image("/image/png", serializer: ImageResponseSerializer(imageScale: asked)).get()
                #expect(image.scale == given)
            }
        }
    }

    @Test func anSVGIsNotAnAcceptableType() async throws {
        try await withImageServer { _, manager in
            let result = await manager.image("/image/svg")
            guard case .responseValidationFailed(.unacceptableContentType(let type, let acceptable, _, _)) = result.error else {
                Issue.record("an SVG is refused by its type, not \(result)")
                return
            }
            #expect(type == "image/svg+xml")
            #expect(acceptable.contains("image/webp") && acceptable.contains("image/avif") && acceptable.contains("image/heic"))
        }
    }

    @Test func aBodyTypedAsAnImageThatIsNotOneIsATypedError() async throws {
        try await withImageServer { _, manager in
            let result = await manager.image("/response-headers?Content-Type=image/png")
            #expect(result.error?.imageFailure == .unrecognizedFormat)
            #expect(result.error?.description.contains("not an image in a known format") == true)
        }
    }

    @Test func anEmptyBodyIsAnError() async throws {
        try await withImageServer { _, manager in
            let result = await manager.image("/status/200")
            guard case .responseSerializationFailed(.inputDataNilOrZeroLength) = result.error else {
                Issue.record("an empty body is an error, not \(result)")
                return
            }
        }
    }

    @Test func aNotFoundHTMLPageFailsOnItsStatus() async throws {
        try await withImageServer { _, manager in
            let result = await manager.image("/counted/missing?status=404&Content-Type=text/html")
            guard case .responseValidationFailed(.unacceptableStatusCode(404, _, _, underlying: .some)) = result.error else {
                Issue.record("a 404 page fails on its status, not \(result)")
                return
            }
        }
    }

    @Test func moreDeclaredPixelsThanTheLimitAreRefused() async throws {
        try await withImageServer { _, manager in
            let result = await manager.image("/image/png", serializer: ImageResponseSerializer(maximumPixelCount: 255))
            #expect(result.error?.imageFailure == .tooManyPixels(format: "PNG", width: 16, height: 16, limit: 255))
            let atTheLimit = try await manager.image("/image/png", serializer: ImageResponseSerializer(maximumPixelCount: 256)).get()
            #expect(atTheLimit.pixelWidth == 16)
        }
        // The default limit, 100 megapixels, refuses a bomb on its header: were the fixture (a bare
        // IHDR, no pixel data) handed to a decoder, it would fail to decode instead.
        let serializer = ImageResponseSerializer()
        #expect(serializer.maximumPixelCount == 100_000_000)
        let bomb = ImageFixtures.png(width: 100_000, height: 100_000)
        #expect(ImageHeaderTests.reason { _ = try serializer.image(from: bomb) } == .tooManyPixels(format: "PNG", width: 100_000, height: 100_000, limit: 100_000_000))
    }

    @Test func theAcceptableTypesAreAFNetworkingsAndTheModernOnes() {
        let types = ImageResponseSerializer().acceptableContentTypes ?? []
        #expect(
            types == [
                "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon", "image/bmp", "image/x-bmp",
                "image/x-xbitmap", "image/x-win-bitmap", "image/webp", "image/avif", "image/heic",
            ])
    }
}
