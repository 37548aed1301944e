#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO
import Lupine

/// Every format ImageIO reads, drawn into 8-bit RGBA (premultiplied alpha, as Core Graphics
/// draws). Written for Apple platforms and not built on the Linux machines Lupine is tested on.
enum ImageIODecoder {
    static func decode(_ data: [UInt8], limits: DecodingLimits) throws(LupineError) -> DecodedImage {
        let options = [kCGImageSourceShouldCache: false] as CFDictionary
        guard let source = CGImageSourceCreateWithData(Data(data) as CFData, options),
            let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, options) as? [CFString: Any],
            let width = properties[kCGImagePropertyPixelWidth] as? Int,
            let height = properties[kCGImagePropertyPixelHeight] as? Int
        else { throw limits.failure("ImageIO cannot read it") }
        let byteCount = try limits.byteCount(width: width, height: height)
        guard let image = CGImageSourceCreateImageAtIndex(source, 0, options) else {
            throw limits.failure("ImageIO could not decode it")
        }
        var pixels = [UInt8](repeating: 0, count: byteCount)
        let drawn = pixels.withUnsafeMutableBytes { buffer -> Bool in
            guard
                let context = CGContext(
                    data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8, bytesPerRow: width * 4,
                    space: CGColorSpace(name: CGColorSpace.sRGB) ?? CGColorSpaceCreateDeviceRGB(),
                    bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue
                )
            else { return false }
            context.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else { throw limits.failure("Core Graphics could not draw it") }
        return DecodedImage(width: width, height: height, rgba: pixels)
    }
}
#endif
