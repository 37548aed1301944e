/// An image as `LupineImage` hands it out: the encoded bytes as they arrived, what their header
/// says (format and pixel size), the scale it is shown at, and its pixels when it was decoded.
public struct Image: Sendable, Equatable {
    /// The encoded bytes, unchanged.
    public let data: [UInt8]
    /// The format the bytes are in.
    public let format: ImageFormat
    /// The width in pixels, from the format's header.
    public let pixelWidth: Int
    /// The height in pixels, from the format's header.
    public let pixelHeight: Int
    /// The scale the image is meant to be shown at (AFNetworking's `imageScale`): a 2× image of
    /// 100×100 pixels is 50×50 points.
    public let scale: Double
    /// The pixels, when the image was decoded.
    public let decoded: DecodedImage?

    /// An image of `data`, in `format`, of the given pixel size and scale, decoded or not.
    public init(data: [UInt8], format: ImageFormat, pixelWidth: Int, pixelHeight: Int, scale: Double = 1, decoded: DecodedImage? = nil) {
        self.data = data
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale
        self.decoded = decoded
    }
}

/// Decoded pixels: 8-bit red, green, blue and alpha per pixel, rows top to bottom, no padding.
public struct DecodedImage: Sendable, Equatable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// `width × height × 4` bytes.
    public let rgba: [UInt8]

    /// Pixels of `width × height`, `rgba` holding 4 bytes for each.
    public init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// The bytes the pixels take.
    public var byteCount: Int { self.rgba.count }
}
