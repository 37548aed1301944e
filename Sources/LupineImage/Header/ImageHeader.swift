import Lupine

/// What an image's header says without decoding it: the format, sniffed from the magic number,
/// and the pixel size. Pure: the bytes are only read, and only within their bounds.
public struct ImageHeader: Sendable, Equatable {
    /// The format the bytes are in.
    public let format: ImageFormat
    /// The width in pixels.
    public let pixelWidth: Int
    /// The height in pixels.
    public let pixelHeight: Int

    /// A header of `format` declaring `pixelWidth × pixelHeight` pixels.
    public init(format: ImageFormat, pixelWidth: Int, pixelHeight: Int) {
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }

    /// Reads the format and pixel size from the start of `bytes` (the whole image, or at least
    /// its header).
    ///
    /// - Throws: `LupineError/ResponseSerializationFailureReason/imageSerializationFailed(_:)`
    ///   with `.unrecognizedFormat` for bytes of no known format, `.truncatedHeader` when they end
    ///   before the size, `.invalidHeader` for a malformed header, and `.emptyImage` for a width
    ///   or height of zero.
    public init(parsing bytes: [UInt8]) throws(LupineError) {
        guard let format = ImageFormat(sniffing: bytes) else {
            throw LupineError.responseSerializationFailed(.imageSerializationFailed(.unrecognizedFormat))
        }
        let header = HeaderBytes(bytes: bytes, format: format)
        let (width, height) = try Self.size(of: header)
        guard width > 0, height > 0 else {
            throw LupineError.responseSerializationFailed(
                .imageSerializationFailed(.emptyImage(format: format.displayName, width: width, height: height))
            )
        }
        self.init(format: format, pixelWidth: width, pixelHeight: height)
    }

    /// The number of pixels, or `nil` when it does not fit in an `Int`.
    public var pixelCount: Int? {
        let (product, overflow) = self.pixelWidth.multipliedReportingOverflow(by: self.pixelHeight)
        return overflow ? nil : product
    }

    private static func size(of header: HeaderBytes) throws(LupineError) -> (width: Int, height: Int) {
        switch header.format {
        case .png: return try PNGHeader.size(of: header)
        case .jpeg: return try JPEGHeader.size(of: header)
        case .gif: return try GIFHeader.size(of: header)
        case .webp: return try WebPHeader.size(of: header)
        case .bmp: return try BMPHeader.size(of: header)
        case .tiff: return try TIFFHeader.size(of: header)
        case .ico: return try ICOHeader.size(of: header)
        case .avif, .heic: return try HEIFHeader.size(of: header)
        }
    }
}
