import Lupine

/// ICO: a directory of images, 16 bytes an entry, each with a one-byte width and height where
/// 0 means 256. The icon's size is its largest entry's (by pixel count).
enum ICOHeader {
    static func size(of header: HeaderBytes) throws(LupineError) -> (width: Int, height: Int) {
        let count = try header.littleEndian(at: 4, length: 2)
        guard count > 0 else { throw header.invalid("its directory has no images") }
        var largest = (width: 0, height: 0)
        for index in 0..<count {
            let entry = 6 + index * 16
            try _ = header.byte(at: entry + 15)  // the whole entry is there
            let width = Int(try header.byte(at: entry))
            let height = Int(try header.byte(at: entry + 1))
            let size = (width: width == 0 ? 256 : width, height: height == 0 ? 256 : height)
            if size.width * size.height > largest.width * largest.height {
                largest = size
            }
        }
        return largest
    }
}
