#if ImageDecoding && !canImport(ImageIO)
import CLupineTurboJPEG
import Lupine

/// JPEG through libjpeg-turbo's TurboJPEG API, which reports errors by return value (libjpeg's
/// own API reports them by `longjmp`, which Swift cannot catch). A warning (a truncated or
/// corrupt stream that libjpeg would fill with grey) is a failure too.
enum JPEGDecoder {
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
        var pixels = [UInt8](repeating: 0, count: byteCount)
        let decoded = data.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(handle, source.baseAddress, UInt(source.count), target.baseAddress, width, 0, height, Int32(TJPF_RGBA.rawValue), 0)
            }
        }
        guard decoded == 0 else { throw limits.failure(Self.message(handle)) }
        return DecodedImage(width: Int(width), height: Int(height), rgba: pixels)
    }

    private static func message(_ handle: tjhandle) -> String {
        tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown TurboJPEG error"
    }
}
#endif
