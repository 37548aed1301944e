import Foundation
import Lupine
import LupineImage
import NIOConcurrencyHelpers
import NIOCore

/// Puts a response body on a terminal as it streams in, for a person (a pipe or a file gets the
/// exact bytes, written by the caller without this type): JSON (up to ``prettyLimit``) is pretty-printed with sorted
/// keys, text is shown as it comes through ``TerminalText`` (no control characters or escape
/// sequences from a hostile server), a final newline is added when missing, and a binary body is
/// summarised in one line instead of dumped: an image as its format, pixel size and length
/// (`PNG 850×300, 4.2 KiB`, as httpie does), anything else as its length.
final class BodyPrinter: Sendable {
    /// The largest JSON body held back to be pretty-printed; a longer one is shown as text.
    static let prettyLimit = 8 * 1024 * 1024
    /// The most bytes of a binary body kept to read an image header from (a JPEG's size may
    /// follow large metadata segments).
    static let headerLimit = 256 * 1024
    /// The bytes text is told from binary on, held back until they have all come (or the body
    /// has ended): every image signature fits, and a body whose first chunk is one byte (a
    /// server may send that) is not taken for text because that byte alone could be.
    static let sniffLength = 16

    private enum Mode {
        /// Waiting for ``sniffLength`` bytes to tell text from binary; the bytes so far.
        case sniffing([UInt8])
        /// Text, made safe by `terminal`; whether the last byte shown was a line feed.
        case text(TerminalText, endsWithNewline: Bool)
        /// JSON held back to be pretty-printed.
        case json([UInt8])
        /// Binary: its length is counted and its first bytes (up to ``headerLimit``) kept.
        case binary(count: Int, head: [UInt8])
    }

    private let mode: NIOLockedValueBox<Mode>
    private let write: @Sendable ([UInt8]) throws -> Void

    /// A printer whose `write` puts bytes on the terminal.
    init(write: @escaping @Sendable ([UInt8]) throws -> Void = { try StandardOutput.write($0) }) {
        self.mode = NIOLockedValueBox(.sniffing([]))
        self.write = write
    }

    /// Takes the response head: on a terminal, a JSON body is held back to be pretty-printed.
    func begin(_ head: ResponseHead) {
        self.mode.withLockedValue { mode in
            if case .sniffing(let held) = mode, held.isEmpty, head.mimeType?.contains("json") == true {
                mode = .json([])
            }
        }
    }

    /// Puts out (or holds back) one chunk of the body.
    func print(_ chunk: ByteBuffer) throws {
        let bytes = Array(chunk.readableBytesView)
        let output: [UInt8] = self.mode.withLockedValue { mode in
            switch mode {
            case .json(var held):
                // Out of `mode` first, so that the append does not copy what is held.
                mode = .sniffing([])
                held += bytes
                guard held.count > Self.prettyLimit else {
                    mode = .json(held)
                    return []
                }
                return Self.shown(held, mode: &mode)
            case .sniffing, .text, .binary:
                return Self.shown(bytes, mode: &mode)
            }
        }
        if !output.isEmpty {
            try self.write(output)
        }
    }

    /// Ends the body: pretty JSON, a missing final newline, or the binary summary.
    func finish() throws {
        let output: [UInt8] = self.mode.withLockedValue { mode in
            if case .json(let held) = mode {
                if let pretty = Self.prettyJSON(held) {
                    return pretty
                }
                mode = .sniffing([])
                return Self.shown(held, mode: &mode, atEnd: true) + Self.ending(&mode)
            }
            return Self.shown([], mode: &mode, atEnd: true) + Self.ending(&mode)
        }
        if !output.isEmpty {
            try self.write(output)
        }
    }

    /// `bytes` as shown on a terminal, deciding text or binary once ``sniffLength`` bytes have
    /// come, or at the end of the body (`atEnd`) on what has.
    private static func shown(_ bytes: [UInt8], mode: inout Mode, atEnd: Bool = false) -> [UInt8] {
        var bytes = bytes
        if case .sniffing(let held) = mode {
            mode = .sniffing([])  // so that the append below does not copy `held`
            bytes = held + bytes
            guard bytes.count >= Self.sniffLength || (atEnd && !bytes.isEmpty) else {
                mode = .sniffing(bytes)
                return []
            }
            // A signature alone does not make an image: `BM` (BMP) or `GIF89a` may start a text.
            let binary = Self.looksBinary(bytes) || (ImageFormat(sniffing: bytes) != nil && bytes.contains(where: Self.isControl))
            mode = binary ? .binary(count: 0, head: []) : .text(TerminalText(), endsWithNewline: false)
        }
        switch mode {
        case .binary(let count, var head):
            mode = .sniffing([])  // so that the append below does not copy `head`
            if head.count < Self.headerLimit {
                head += bytes.prefix(Self.headerLimit - head.count)
            }
            mode = .binary(count: count + bytes.count, head: head)
            return []
        case .text(var terminal, let endsWithNewline):
            let shown = terminal.show(bytes)
            mode = .text(terminal, endsWithNewline: shown.last.map { $0 == 0x0A } ?? endsWithNewline)
            return shown
        default:
            return bytes
        }
    }

    /// What a terminal gets after the last bytes shown in `mode`.
    private static func ending(_ mode: inout Mode) -> [UInt8] {
        switch mode {
        case .text(var terminal, let endsWithNewline):
            let rest = terminal.finish()
            mode = .text(terminal, endsWithNewline: true)
            return rest.isEmpty && endsWithNewline ? [] : rest + [0x0A]
        case .binary(let count, let head):
            return Array((Self.imageSummary(head, count: count) ?? "[binary body of \(count) bytes not shown on a terminal: redirect the output to keep it]").utf8) + [0x0A]
        default:
            return []
        }
    }

    /// `PNG 850×300, 4.2 KiB` for a body of `count` bytes starting with `head`, when `head` is the
    /// start of an image whose size its header tells.
    static func imageSummary(_ head: [UInt8], count: Int) -> String? {
        guard let header = try? ImageHeader(parsing: head) else { return nil }
        return "\(header.format.displayName) \(header.pixelWidth)×\(header.pixelHeight), \(ProgressBar.bytes(Double(count)))"
    }

    /// Whether the first bytes of a body are binary: a NUL, or not UTF-8 (a character cut off
    /// at the end of the sample is allowed).
    static func looksBinary(_ bytes: [UInt8]) -> Bool {
        let sample = bytes.prefix(4096)
        if sample.contains(0) { return true }
        var iterator = sample.makeIterator()
        var decoder = UTF8()
        var decoded = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                decoded += UTF8.width(scalar)
            case .emptyInput:
                return false
            case .error:
                return sample.count - decoded > 3
            }
        }
    }

    /// Whether `byte` is an ASCII control character other than a tab or a line break.
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F
    }

    /// `bytes` as pretty-printed JSON with sorted keys, safe for a terminal, with a final
    /// newline; `nil` when they are not JSON.
    private static func prettyJSON(_ bytes: [UInt8]) -> [UInt8]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed),
            let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else { return nil }
        return Array(TerminalText.sanitized(String(decoding: pretty, as: UTF8.self)).utf8) + [0x0A]
    }
}
