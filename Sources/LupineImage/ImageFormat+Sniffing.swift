extension ImageFormat {
    /// The format whose magic number `bytes` start with, or `nil` for none Lupine knows.
    ///
    /// AVIF and HEIC share the ISO base media file format: an `ftyp` box whose major or
    /// compatible brands name the format (`avif`/`avis`; `heic`, `heix`, `heim`, `heis`, `hevc`,
    /// `hevx`), AVIF winning when both are named.
    public init?(sniffing bytes: [UInt8]) {
        let header = HeaderBytes(bytes: bytes, format: .png)
        if header.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if header.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if header.matches("GIF87a", at: 0) || header.matches("GIF89a", at: 0) {
            self = .gif
        } else if header.matches("RIFF", at: 0), header.matches("WEBP", at: 8) {
            self = .webp
        } else if header.matches("BM", at: 0) {
            self = .bmp
        } else if header.starts(with: [0x49, 0x49, 0x2A, 0x00]) || header.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            self = .tiff
        } else if header.starts(with: [0x00, 0x00, 0x01, 0x00]) {
            self = .ico
        } else if let format = Self.isoBrandFormat(header) {
            self = format
        } else {
            return nil
        }
    }

    private static let avifBrands: Set<String> = ["avif", "avis"]
    private static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]

    /// AVIF or HEIC from an `ftyp` box's brands, or `nil`.
    private static func isoBrandFormat(_ header: HeaderBytes) -> ImageFormat? {
        guard header.matches("ftyp", at: 4), let boxSize = try? header.bigEndian(at: 0, length: 4), boxSize >= 16 else {
            return nil
        }
        let end = min(boxSize, header.count)
        var brands: [String] = []
        for offset in stride(from: 8, to: end - 3, by: 4) where offset != 12 {  // 12: the minor version
            brands.append(String(decoding: header.bytes[offset..<offset + 4], as: UTF8.self))
        }
        if brands.contains(where: Self.avifBrands.contains) { return .avif }
        if brands.contains(where: Self.heicBrands.contains) { return .heic }
        return nil
    }
}
