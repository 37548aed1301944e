#if ImageDecoding && !canImport(ImageIO)
import CLupinePNG
import Lupine

/// PNG through libpng's simplified API, which reports errors by return value (it keeps its
/// `setjmp` inside), to 8-bit RGBA in sRGB.
enum PNGDecoder {
    static func decode(_ data: [UInt8], limits: DecodingLimits) throws(LupineError) -> DecodedImage {
        // libpng reads from the bytes between the two calls, so both run while they are pinned.
        try data.withUnsafeBytes { Self.decode(memory: $0, limits: limits) }.get()
    }

    private static func decode(memory: UnsafeRawBufferPointer, limits: DecodingLimits) -> Result<DecodedImage, LupineError> {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_memory(&image, memory.baseAddress, memory.count) != 0 else {
            return .failure(limits.failure(Self.message(of: image)))
        }
        let width = Int(image.width)
        let height = Int(image.height)
        let byteCount: Int
        do {
            byteCount = try limits.byteCount(width: width, height: height)
        } catch {
            png_image_free(&image)
            return .failure(error)
        }
        // PNG_FORMAT_RGBA, a macro Swift does not import.
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
        // A 16-bit file with no gAMA or sRGB chunk is sRGB, as every viewer takes it; libpng
        // would otherwise take it as linear light and brighten it (50 % grey coming out as 186).
        image.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
        // `png_image_finish_read` frees what libpng holds whether or not it succeeds.
        let pixels = limits.pixels(byteCount) {
            // Row stride 0: libpng's own, `width × 4` (which may not fit the parameter's Int32).
            png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) != 0
        }
        guard let pixels else { return .failure(limits.failure(Self.message(of: image))) }
        return .success(DecodedImage(width: width, height: height, rgba: pixels))
    }

    /// libpng's message, a NUL-terminated string in a fixed array.
    private static func message(of image: png_image) -> String {
        withUnsafeBytes(of: image.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
#endif
