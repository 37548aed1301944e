#if ImageDecoding && !canImport(ImageIO)
import CLupineWebP
import Lupine

/// WebP (lossy, lossless, with alpha; not animated) through libwebp's simple decoding API.
enum WebPDecoder {
    static func decode(_ data: [UInt8], limits: DecodingLimits) throws(LupineError) -> DecodedImage {
        var width: Int32 = 0
        var height: Int32 = 0
        let known = data.withUnsafeBufferPointer { WebPGetInfo($0.baseAddress, $0.count, &width, &height) }
        guard known != 0 else { throw limits.failure("libwebp cannot read its header") }
        let byteCount = try limits.byteCount(width: Int(width), height: Int(height))
        var pixels = [UInt8](repeating: 0, count: byteCount)
        let decoded = data.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                WebPDecodeRGBAInto(source.baseAddress, source.count, target.baseAddress, target.count, width * 4)
            }
        }
        guard decoded != nil else { throw limits.failure("libwebp could not decode it (truncated, corrupt or animated)") }
        return DecodedImage(width: Int(width), height: Int(height), rgba: pixels)
    }
}
#endif
