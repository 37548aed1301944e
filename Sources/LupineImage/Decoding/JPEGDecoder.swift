#if ImageDecoding && !canImport(ImageIO)
import CLupineTurboJPEG
import Lupine

/// JPEG through libjpeg-turbo's TurboJPEG API, which reports errors by return value (libjpeg's
/// own API reports them by `longjmp`, which Swift cannot catch). A warning (a truncated or
/// corrupt stream that libjpeg would fill with grey) is a failure too, and stops the decoding
/// at once.
enum JPEGDecoder {
    /// Stop at the first warning, and refuse a progressive image of more than 500 scans: each
    /// scan is a pass over the whole image, so a small file of thousands of them would keep a
    /// core busy for minutes (libjpeg-turbo's advice for untrusted input).
    private static let flags = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS

    static func decode(_ data: [UInt8], limits: DecodingLimits) throws(LupineError) -> DecodedImage {
        guard let handle = tjInitDecompress() else { throw limits.failure("TurboJPEG could not start") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let read = data.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        guard read == 0 else { throw limits.failure(Self.message(handle)) }
        let byteCount = try limits.byteCount(width: Int(width), height: Int(height))
        // TurboJPEG converts CMYK (and YCCK, which it decodes to CMYK) to no RGB format: those
        // are decoded to CMYK, four bytes a pixel as RGBA, and converted in place.
        let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let pixelFormat = cmyk ? TJPF_CMYK : TJPF_RGBA
        let decoded = data.withUnsafeBufferPointer { source in
            limits.pixels(byteCount) { target in
                tjDecompress2(handle, source.baseAddress, UInt(source.count), target.baseAddress, width, 0, height, Int32(pixelFormat.rawValue), Self.flags) == 0
            }
        }
        guard var pixels = decoded else { throw limits.failure(Self.message(handle)) }
        if cmyk {
            Self.convertInvertedCMYKToRGBA(&pixels)
        }
        return DecodedImage(width: Int(width), height: Int(height), rgba: pixels)
    }

    /// CMYK pixels as JPEG files hold them, inverted (Adobe's convention: 255 is no ink), made
    /// opaque RGBA in place: each of red, green and blue is its inverted ink times the inverted
    /// black, over 255, rounded (the conversion libjpeg-turbo's own tools use).
    private static func convertInvertedCMYKToRGBA(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            for offset in stride(from: 0, to: buffer.count, by: 4) {
                let black = UInt32(buffer[offset + 3])
                for channel in offset..<offset + 3 {
                    buffer[channel] = UInt8((UInt32(buffer[channel]) * black + 127) / 255)
                }
                buffer[offset + 3] = 255
            }
        }
    }

    private static func message(_ handle: tjhandle) -> String {
        tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown TurboJPEG error"
    }
}
#endif
