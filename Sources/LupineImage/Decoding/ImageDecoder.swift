import Lupine

/// Decodes encoded images to RGBA8 pixels with the platform's codecs; Lupine has none of its own.
///
/// - On Apple platforms, ImageIO decodes every format it reads.
/// - On Linux, with the package trait `ImageDecoding` (and libpng, libjpeg-turbo's TurboJPEG and
///   libwebp installed), the system libraries decode PNG, JPEG and WebP (not animated WebP).
/// - Otherwise nothing is decoded: images keep their bytes, format and size only.
///
/// Each decoder checks the size the codec reads against the pixel limit before it allocates
/// the pixels.
public enum ImageDecoder {
    /// The formats this build decodes.
    public static let decodableFormats: Set<ImageFormat> = {
        #if canImport(ImageIO)
        return Set(ImageFormat.allCases)
        #elseif ImageDecoding
        return [.png, .jpeg, .webp]
        #else
        return []
        #endif
    }()

    /// Whether this build decodes any format.
    public static var isAvailable: Bool { !Self.decodableFormats.isEmpty }

    /// The pixels of `data`, whose header is `header`, or `nil` when its format is not
    /// decodable here (nor, on Linux, an animated WebP). Refuses a size over `maximumPixelCount`
    /// before allocating.
    public static func decode(_ data: [UInt8], header: ImageHeader, maximumPixelCount: Int) throws(LupineError) -> DecodedImage? {
        guard Self.decodableFormats.contains(header.format) else { return nil }
        let limits = DecodingLimits(format: header.format, maximumPixelCount: maximumPixelCount)
        #if canImport(ImageIO)
        return try ImageIODecoder.decode(data, limits: limits)
        #elseif ImageDecoding
        switch header.format {
        case .png: return try PNGDecoder.decode(data, limits: limits)
        case .jpeg: return try JPEGDecoder.decode(data, limits: limits)
        case .webp: return try WebPDecoder.decode(data, limits: limits)
        default: return nil
        }
        #else
        return nil
        #endif
    }
}

/// What a decoder may allocate, and the errors it reports, for one image.
struct DecodingLimits {
    let format: ImageFormat
    let maximumPixelCount: Int

    /// The byte count of `width × height` RGBA8 pixels, once the size is known to be within
    /// the limit.
    func byteCount(width: Int, height: Int) throws(LupineError) -> Int {
        let header = ImageHeader(format: self.format, pixelWidth: width, pixelHeight: height)
        guard width > 0, height > 0 else {
            throw LupineError.responseSerializationFailed(
                .imageSerializationFailed(.emptyImage(format: self.format.displayName, width: width, height: height))
            )
        }
        try ImageResponseSerializer.checkPixelCount(header, limit: self.maximumPixelCount)
        let (bytes, overflow) = width.multipliedReportingOverflow(by: height * 4)
        guard !overflow else { throw self.failure("the image is too large to hold in memory") }
        return bytes
    }

    /// `byteCount` bytes that `decode` writes the pixels into, or `nil` when it fails (it
    /// returns whether it wrote them all). The bytes are not zeroed first, so the system commits
    /// the pages of a large buffer only as the codec writes them: a file of a few bytes that
    /// declares 100 megapixels and fails at its first row costs kilobytes, not 400 MB.
    func pixels(_ byteCount: Int, decode: (UnsafeMutableBufferPointer<UInt8>) -> Bool) -> [UInt8]? {
        var wrote = false
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initializedCount in
            wrote = decode(buffer)
            // Only a codec that wrote every byte hands them out; otherwise none is kept.
            initializedCount = wrote ? byteCount : 0
        }
        return wrote ? pixels : nil
    }

    /// The error for a codec's failure.
    func failure(_ reason: String) -> LupineError {
        .responseSerializationFailed(.imageSerializationFailed(.decodingFailed(format: self.format.displayName, reason: reason)))
    }
}
