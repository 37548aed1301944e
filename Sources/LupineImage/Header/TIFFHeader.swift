import Lupine

/// TIFF: `II` (little-endian) or `MM` (big-endian), 42, then the offset of the first image file
/// directory, whose 12-byte entries hold ImageWidth (tag 256) and ImageLength (tag 257) as a
/// SHORT (type 3) or a LONG (type 4) in the entry's value field.
enum TIFFHeader {
    private static let imageWidth = 256
    private static let imageLength = 257

    static func size(of header: HeaderBytes) throws(LupineError) -> (width: Int, height: Int) {
        let littleEndian = header.matches("II", at: 0)
        func read(_ offset: Int, _ length: Int) throws(LupineError) -> Int {
            littleEndian ? try header.littleEndian(at: offset, length: length) : try header.bigEndian(at: offset, length: length)
        }
        let directory = try read(4, 4)
        guard directory >= 8 else { throw header.invalid("its first directory is at byte \(directory), inside the header") }
        let entries = try read(directory, 2)
        var width: Int?
        var height: Int?
        for index in 0..<entries {
            let entry = directory + 2 + index * 12
            let tag = try read(entry, 2)
            guard tag == Self.imageWidth || tag == Self.imageLength else { continue }
            let value: Int
            switch try read(entry + 2, 2) {
            case 3: value = try read(entry + 8, 2)
            case 4: value = try read(entry + 8, 4)
            case let type: throw header.invalid("tag \(tag) has type \(type), not SHORT or LONG")
            }
            if tag == Self.imageWidth { width = value } else { height = value }
            if let width, let height { return (width, height) }
        }
        throw header.invalid("its first directory has no ImageWidth or no ImageLength")
    }
}
