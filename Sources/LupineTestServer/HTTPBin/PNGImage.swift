import CompressNIO
import NIOCore

/// The PNG served by `/image/png`: an RGB gradient encoded in code, 16×16 unless asked
/// otherwise. The pixel at (x, y) is red `x × 16`, green `y × 16` (both modulo 256), blue 128.
enum PNGImage {
    /// The largest width and height `/image/png?size=` serves.
    static let maximumSide = 4096

    /// The encoded image of `width × height` pixels (each from 1 to ``maximumSide``).
    static func sample(width: Int = 16, height: Int = 16) throws -> [UInt8] {
        var scanlines = ByteBuffer()
        scanlines.reserveCapacity(height * (1 + width * 3))
        for y in 0..<height {
            scanlines.writeInteger(UInt8(0))  // filter type: none
            for x in 0..<width {
                scanlines.writeBytes([UInt8(truncatingIfNeeded: x * 16), UInt8(truncatingIfNeeded: y * 16), 128])
            }
        }
        let compressed = try scanlines.compress(with: .zlib())

        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]  // bit depth 8, truecolour, deflate, no filter, no interlace

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", header)
        png += chunk("IDAT", Array(compressed.readableBytesView))
        png += chunk("IEND", [])
        return png
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        var chunk: [UInt8] = []
        chunk.appendBigEndian(UInt32(data.count))
        chunk += typeAndData
        chunk.appendBigEndian(CRC32.checksum(typeAndData))
        return chunk
    }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
    }
}
