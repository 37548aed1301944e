#if ImageDecoding && !canImport(ImageIO)
import CLupineWebP
import Lupine

/// WebP (lossy, lossless, with alpha) through libwebp's simple decoding API. That API decodes
/// no animation, so an animated WebP is left undecoded, as a format without a decoder is: the
/// image keeps its bytes, format and size.
enum WebPDecoder {
    static func decode(_ data: [UInt8], limits: DecodingLimits) throws(LupineError) -> DecodedImage? {
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else { throw limits.failure("libwebp cannot read its header") }
        if features.has_animation != 0 { return nil }
        let (width, height) = (features.width, features.height)
        let byteCount = try limits.byteCount(width: Int(width), height: Int(height))
        let decoded = data.withUnsafeBufferPointer { source in
            limits.pixels(byteCount) { target in
                WebPDecodeRGBAInto(source.baseAddress, source.count, target.baseAddress, target.count, width * 4) != nil
            }
        }
        guard let pixels = decoded else { throw limits.failure("libwebp could not decode it (truncated or corrupt)") }
        return DecodedImage(width: Int(width), height: Int(height), rgba: pixels)
    }
}
#endif
