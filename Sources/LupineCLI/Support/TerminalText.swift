/// Text from the network made safe to show on a terminal: a hostile server must not be able to
/// move the cursor, rewrite a line, retitle the window or reorder what a person reads.
///
/// Every control character but tab and line feed (C0, DEL, and the one-byte C1 controls such as
/// U+009B, which terminals read as an escape sequence), a carriage return that does not end a
/// line, the bidirectional overrides and isolates, and bytes that are not UTF-8 are shown as `.`.
/// Bytes may arrive in chunks that cut a character or a CR LF in two: what might continue is held
/// until the next chunk or ``finish()``.
struct TerminalText {
    /// The end of the previous chunk that may continue in the next one.
    private var pending: [UInt8] = []

    /// `chunk` as shown, less anything held back for the next chunk.
    mutating func show(_ chunk: some Collection<UInt8>) -> [UInt8] {
        let bytes = self.pending + chunk
        self.pending = []
        var shown: [UInt8] = []
        shown.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let length = Self.sequenceLength(leading: bytes[index])
            if index + length > bytes.count {
                // A character (or a CR's line feed) that may come with the next chunk.
                self.pending = Array(bytes[index...])
                break
            }
            let sequence = bytes[index..<(index + length)]
            if length == 1 && bytes[index] == 0x0D {
                if index + 1 == bytes.count {
                    self.pending = [0x0D]
                    break
                }
                shown.append(bytes[index + 1] == 0x0A ? 0x0D : UInt8(ascii: "."))
                index += 1
                continue
            }
            guard length > 0, let character = String(validating: sequence, as: UTF8.self)?.unicodeScalars.first else {
                shown.append(UInt8(ascii: "."))
                index += 1
                continue
            }
            if Self.isShown(character) {
                shown.append(contentsOf: sequence)
            } else {
                shown.append(UInt8(ascii: "."))
            }
            index += length
        }
        return shown
    }

    /// What was held back, shown now that no more bytes come.
    mutating func finish() -> [UInt8] {
        let rest = self.pending
        self.pending = []
        return rest.map { _ in UInt8(ascii: ".") }
    }

    /// `text` as shown on a terminal.
    static func sanitized(_ text: String) -> String {
        var terminal = TerminalText()
        let shown = terminal.show(Array(text.utf8)) + terminal.finish()
        return String(decoding: shown, as: UTF8.self)
    }

    /// How many bytes the UTF-8 sequence starting with `byte` has; 0 for a byte that starts none.
    private static func sequenceLength(leading byte: UInt8) -> Int {
        switch byte {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF4: return 4
        default: return 0
        }
    }

    /// Whether `scalar` may reach a terminal as it is.
    private static func isShown(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: return true
        case 0x00...0x1F, 0x7F...0x9F: return false
        case 0x202A...0x202E, 0x2066...0x2069: return false
        default: return true
        }
    }
}
