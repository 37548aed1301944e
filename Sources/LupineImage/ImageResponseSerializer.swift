import Foundation
import Lupine

// STAND-IN for branch imgdl15 only: the imgcore15 branch's ImageResponseSerializer (format
// sniffing for every format, scale, decoding, a pixel limit) replaces this file at merge. It
// reads the pixel size of a PNG or a JPEG and nothing else, so the downloader has a serializer.

/// Makes an ``Image`` of a PNG or JPEG body after the usual validation.
struct ImageResponseSerializer: ResponseSerializer {
    var acceptableStatusCodes = IndexSet(integersIn: 200..<300)
    var acceptableContentTypes: Set<String>? = [
        "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon", "image/bmp",
        "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap", "image/webp", "image/avif", "image/heic",
    ]

    func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<Image> {
        self.validateThenParse(head: head, data: data) { () throws(LupineError) -> Image? in
            guard !data.isEmpty else { throw .responseSerializationFailed(.inputDataNilOrZeroLength) }
            if let size = Self.pngSize(data) {
                return Image(data: data, format: .png, pixelWidth: size.width, pixelHeight: size.height)
            }
            if let size = Self.jpegSize(data) {
                return Image(data: data, format: .jpeg, pixelWidth: size.width, pixelHeight: size.height)
            }
            throw .responseSerializationFailed(.decodingFailed(reason: "the body is not a PNG or JPEG image"))
        }
    }

    private static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        return (bigEndian(bytes, at: 16, count: 4), bigEndian(bytes, at: 20, count: 4))
    }

    private static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
        var index = 2
        while index + 9 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (bigEndian(bytes, at: index + 7, count: 2), bigEndian(bytes, at: index + 5, count: 2))
            }
            index += 2 + bigEndian(bytes, at: index + 2, count: 2)
        }
        return nil
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> Int {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }
}
