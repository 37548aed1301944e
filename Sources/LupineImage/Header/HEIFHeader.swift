import Lupine

/// AVIF and HEIC (HEIF files, in ISO base media boxes): the size is an `ispe` (image spatial
/// extents) property in `meta` › `iprp` › `ipco`. A file may carry several (thumbnails, the
/// tiles of a grid, the grid itself); the image's size is the largest.
///
/// A box is a big-endian 32-bit size (counting its header; 0: to the end of its parent; 1: a
/// 64-bit size follows the type), a four-letter type, then its content; a full box (`meta`,
/// `ispe`) starts its content with a version and flags.
enum HEIFHeader {
    static func size(of header: HeaderBytes) throws(LupineError) -> (width: Int, height: Int) {
        let meta = try Self.first("meta", in: 0..<header.count, header)
        guard meta.content.count >= 4 else { throw header.invalid("its meta box has no version") }
        let properties = try Self.first("iprp", in: meta.content.lowerBound + 4..<meta.content.upperBound, header)
        let container = try Self.first("ipco", in: properties.content, header)
        var largest: (width: Int, height: Int)?
        for box in try Self.children(of: container.content, header).boxes where box.type == "ispe" {
            guard box.content.count >= 12 else { throw header.invalid("an ispe box is \(box.content.count + 8) bytes long") }
            let width = try header.bigEndian(at: box.content.lowerBound + 4, length: 4)
            let height = try header.bigEndian(at: box.content.lowerBound + 8, length: 4)
            // Each side is below 2³², so the areas fit in 64 unsigned bits.
            if largest.map({ UInt64(width) * UInt64(height) > UInt64($0.width) * UInt64($0.height) }) ?? true {
                largest = (width, height)
            }
        }
        guard let largest else { throw header.invalid("it has no image spatial extents (ispe)") }
        return largest
    }

    /// The first box of `type` in `range`; missing, it is a truncation when the boxes run to
    /// the end of the bytes at hand (more may have followed), else an invalid file.
    private static func first(_ type: String, in range: Range<Int>, _ header: HeaderBytes) throws(LupineError) -> Box {
        let (boxes, end) = try Self.children(of: range, header, upTo: type)
        if let box = boxes.last, box.type == type { return box }
        throw end >= header.count ? header.truncated : header.invalid("it has no \(type) box")
    }

    private struct Box {
        let type: String
        /// Where the content lies; it may run past the bytes at hand, whose reads then fail.
        let content: Range<Int>
    }

    /// The boxes in `range`, in order, up to the first of type `last` if given (what follows
    /// it may be cut off), and where the last one ends.
    private static func children(of range: Range<Int>, _ header: HeaderBytes, upTo last: String? = nil) throws(LupineError) -> (boxes: [Box], end: Int) {
        var boxes: [Box] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            var size = try header.bigEndian(at: offset, length: 4)
            try _ = header.byte(at: offset + 7)
            let type = String(decoding: header.bytes[offset + 4..<offset + 8], as: UTF8.self)
            var headerLength = 8
            if size == 1 {
                let high = try header.bigEndian(at: offset + 8, length: 4)
                guard high < 0x8000 else { throw header.invalid("the \(type) box is larger than any image") }
                size = high << 32 | (try header.bigEndian(at: offset + 12, length: 4))
                headerLength = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= headerLength else { throw header.invalid("the \(type) box is \(size) bytes long") }
            boxes.append(Box(type: type, content: offset + headerLength..<offset + size))
            offset += size
            if type == last { break }
        }
        return (boxes, offset)
    }
}
