import Foundation
import Lupine

/// Validates a response and makes its body an ``Image``, as AFNetworking's
/// `AFImageResponseSerializer` does: the format is sniffed from the bytes (whatever the
/// `Content-Type` says), the pixel size read from the header, and the pixels decoded when
/// ``automaticallyInflatesResponseImage`` is on and a decoder for the format is built in (see
/// ``ImageDecoder``). Serialization runs off the transport's event loops, so decoding there
/// blocks none of them.
///
/// A body that is empty, not an image of a known format, cut off before its size, of zero pixels
/// or of more pixels than ``maximumPixelCount`` is a
/// `LupineError/ResponseSerializationFailureReason` error; the pixel limit is checked on the
/// declared size, before anything is allocated for the pixels.
public struct ImageResponseSerializer: ResponseSerializer {
    /// AFNetworking's image types, plus `image/webp`, `image/avif` and `image/heic`.
    public static let defaultAcceptableContentTypes: Set<String> = [
        "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon", "image/bmp",
        "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap", "image/webp", "image/avif", "image/heic",
    ]
    /// The default ``maximumPixelCount``: 100 megapixels (400 MB of RGBA).
    public static let defaultMaximumPixelCount = 100_000_000

    /// The status codes that pass validation (default 200..<300).
    public var acceptableStatusCodes: IndexSet
    /// The MIME types that pass validation (``defaultAcceptableContentTypes`` by default).
    public var acceptableContentTypes: Set<String>?
    /// The scale the images are shown at (default 1); a value that is not a positive finite
    /// number is taken as 1.
    public var imageScale: Double
    /// Whether the pixels are decoded into ``Image/decoded`` (default: whether a decoder is built
    /// in, ``ImageDecoder/isAvailable``). Formats without a decoder are never decoded.
    public var automaticallyInflatesResponseImage: Bool
    /// The most pixels an image may declare (default ``defaultMaximumPixelCount``), checked
    /// whether or not it is decoded.
    public var maximumPixelCount: Int

    /// Creates a serializer.
    public init(
        imageScale: Double = 1,
        automaticallyInflatesResponseImage: Bool = ImageDecoder.isAvailable,
        maximumPixelCount: Int = Self.defaultMaximumPixelCount,
        acceptableStatusCodes: IndexSet = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = Self.defaultAcceptableContentTypes
    ) {
        self.imageScale = imageScale
        self.automaticallyInflatesResponseImage = automaticallyInflatesResponseImage
        self.maximumPixelCount = maximumPixelCount
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Validates the response and makes its body an image.
    public func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<Image> {
        self.validateThenParse(head: head, data: data) { () throws(LupineError) -> Image? in
            try self.image(from: data)
        }
    }

    /// `data` as an image: sniffed, measured, checked against ``maximumPixelCount`` and decoded
    /// as the serializer is configured. No validation of a response: the bytes alone.
    public func image(from data: [UInt8]) throws(LupineError) -> Image {
        guard !data.isEmpty else { throw LupineError.responseSerializationFailed(.inputDataNilOrZeroLength) }
        let header = try ImageHeader(parsing: data)
        try Self.checkPixelCount(header, limit: self.maximumPixelCount)
        let decoded =
            self.automaticallyInflatesResponseImage
            ? try ImageDecoder.decode(data, header: header, maximumPixelCount: self.maximumPixelCount)
            : nil
        let scale = self.imageScale.isFinite && self.imageScale > 0 ? self.imageScale : 1
        return Image(
            data: data,
            format: header.format,
            pixelWidth: header.pixelWidth,
            pixelHeight: header.pixelHeight,
            scale: scale,
            decoded: decoded
        )
    }

    /// Throws when `header` declares more pixels than `limit`.
    static func checkPixelCount(_ header: ImageHeader, limit: Int) throws(LupineError) {
        if let count = header.pixelCount, count <= limit { return }
        throw LupineError.responseSerializationFailed(
            .imageSerializationFailed(
                .tooManyPixels(format: header.format.displayName, width: header.pixelWidth, height: header.pixelHeight, limit: limit)
            )
        )
    }
}
