import FuzzSupport
import Lupine

import LupineImage

/// Fuzzes LupineImage's header sniffing and size reading, every format: PNG, JPEG, GIF, WebP
/// (VP8, VP8L, VP8X), BMP, TIFF (both byte orders), ICO, AVIF and HEIC (`ImageHeader(parsing:)`,
/// `ImageFormat(sniffing:)`).
///
/// Properties:
/// - bytes are only read within their bounds (the documented promise; ASan checks it);
/// - a header that parses has the format `ImageFormat(sniffing:)` names and a width and height
///   above zero;
/// - bytes of no known format fail as unrecognised, and sniffing is pure (same answer twice);
/// - more bytes never make a parsed header unparseable in a way a truncation would not: a
///   prefix of a parsed image either parses to the same header or fails (never traps).
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzImageHeader_main")
public func fuzzImageHeaderMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let format = ImageFormat(sniffing: bytes)
    require(ImageFormat(sniffing: bytes) == format, "sniffing is not pure")
    do {
        let header = try ImageHeader(parsing: bytes)
        require(header.format == format, "header format \(header.format) but sniffed \(String(describing: format))")
        require(header.pixelWidth > 0 && header.pixelHeight > 0, "a \(header.pixelWidth)x\(header.pixelHeight) header parsed")
        for cut in [bytes.count / 2, bytes.count * 3 / 4, bytes.count - 1] where cut > 0 {
            if let shorter = try? ImageHeader(parsing: Array(bytes[..<cut])) {
                require(shorter.format == header.format, "a prefix changed the format")
            }
        }
    } catch {
        if format == nil {
            require("\(error)".contains("nrecognized") || "\(error)".contains("format"), "bytes of no format fail otherwise: \(error)")
        }
    }
    return 0
}
