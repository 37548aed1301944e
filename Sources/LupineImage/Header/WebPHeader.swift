import Lupine

/// WebP: a RIFF file whose first chunk says which bitstream follows and where the size is.
/// - `VP8 ` (lossy): a key frame's start code `9D 01 2A`, then 14-bit width and height.
/// - `VP8L` (lossless): the signature `2F`, then width − 1 and height − 1 in 14 bits each.
/// - `VP8X` (extended): the canvas width − 1 and height − 1 in 24 bits each.
enum WebPHeader {
    static func size(of header: HeaderBytes) throws(LupineError) -> (width: Int, height: Int) {
        if header.matches("VP8 ", at: 12) {
            guard try header.byte(at: 23) == 0x9D, try header.byte(at: 24) == 0x01, try header.byte(at: 25) == 0x2A else {
                throw header.invalid("its VP8 frame has no key-frame start code")
            }
            return (
                try header.littleEndian(at: 26, length: 2) & 0x3FFF,
                try header.littleEndian(at: 28, length: 2) & 0x3FFF
            )
        }
        if header.matches("VP8L", at: 12) {
            guard try header.byte(at: 20) == 0x2F else { throw header.invalid("its VP8L signature is missing") }
            let bits = try header.littleEndian(at: 21, length: 4)
            return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
        }
        if header.matches("VP8X", at: 12) {
            return (try header.littleEndian(at: 24, length: 3) + 1, try header.littleEndian(at: 27, length: 3) + 1)
        }
        if header.count < 16 { throw header.truncated }
        throw header.invalid("its first chunk is not VP8, VP8L or VP8X")
    }
}
