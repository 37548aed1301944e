extension LupineError {
    /// Why a body could not be made into an image (`LupineImage`'s `ImageResponseSerializer`).
    /// `format` is the format's usual name (`PNG`, `JPEG`, …) as the bytes announced it.
    public enum ImageFailureReason: Sendable, Equatable {
        /// The bytes do not start as any image format Lupine recognises.
        case unrecognizedFormat
        /// The bytes end before the header says how large the image is.
        case truncatedHeader(format: String)
        /// The header is not one the format allows; `reason` says what is wrong.
        case invalidHeader(format: String, reason: String)
        /// The header declares a width or a height of zero.
        case emptyImage(format: String, width: Int, height: Int)
        /// The declared size has more pixels than the serializer's limit, so it was refused
        /// before anything was allocated for it (a decompression bomb, or just too large).
        case tooManyPixels(format: String, width: Int, height: Int, limit: Int)
        /// The codec could not decode the pixels; `reason` is the codec's.
        case decodingFailed(format: String, reason: String)
    }

    /// The sentence for an image failure.
    static func describe(_ reason: ImageFailureReason) -> String {
        switch reason {
        case .unrecognizedFormat:
            return "the response is not an image in a known format (PNG, JPEG, GIF, WebP, BMP, TIFF, ICO, AVIF or HEIC)"
        case .truncatedHeader(let format):
            return "the response is a \(format) image cut off before its size"
        case .invalidHeader(let format, let why):
            return "the response is not a valid \(format) image: \(MessageText.oneLine(why))"
        case .emptyImage(let format, let width, let height):
            return "the response is a \(format) image of \(width)×\(height) pixels, which has no pixels"
        case .tooManyPixels(let format, let width, let height, let limit):
            return "the response is a \(format) image of \(width)×\(height) pixels, more than the limit of \(limit) pixels; raise the serializer's maximumPixelCount to accept it"
        case .decodingFailed(let format, let why):
            return "the \(format) image could not be decoded: \(MessageText.oneLine(why))"
        }
    }
}
