/// The encoded image formats `LupineImage` recognises from their bytes.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case png
    case jpeg
    case gif
    case webp
    case bmp
    case tiff
    case ico
    case avif
    case heic

    /// The usual name of the format, as a summary line prints it (`PNG`, `JPEG`, …).
    public var displayName: String {
        self.rawValue.uppercased()
    }
}
