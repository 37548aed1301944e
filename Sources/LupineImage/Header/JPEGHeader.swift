import Lupine

/// JPEG: the size is in the frame header (a SOFn segment), which may follow any number of other
/// segments (APPn, comments, quantisation and Huffman tables). Each marker is `FF` then a code,
/// possibly after fill bytes (more `FF`s); the standalone markers (TEM, RSTn) carry no length,
/// every other one a big-endian length that counts itself.
enum JPEGHeader {
    /// The SOFn codes: C0 to CF but DHT (C4), JPG (C8) and DAC (CC).
    private static let frameMarkers: Set<UInt8> = Set(0xC0...0xCF).subtracting([0xC4, 0xC8, 0xCC])

    static func size(of header: HeaderBytes) throws(LupineError) -> (width: Int, height: Int) {
        var offset = 2  // after SOI
        while true {
            guard try header.byte(at: offset) == 0xFF else {
                throw header.invalid("a segment does not start with a marker at byte \(offset)")
            }
            offset += 1
            var code = try header.byte(at: offset)
            while code == 0xFF {  // fill bytes
                offset += 1
                code = try header.byte(at: offset)
            }
            offset += 1  // now after the marker's code
            switch code {
            case 0x01, 0xD0...0xD7:
                continue
            case 0xD8, 0xD9, 0xDA, 0x00:
                throw header.invalid("the image data start before its frame header")
            default:
                break
            }
            let length = try header.bigEndian(at: offset, length: 2)
            guard length >= 2 else { throw header.invalid("a segment is \(length) bytes long") }
            if Self.frameMarkers.contains(code) {
                // Length, precision, then height and width.
                return (try header.bigEndian(at: offset + 5, length: 2), try header.bigEndian(at: offset + 3, length: 2))
            }
            offset += length
        }
    }
}
