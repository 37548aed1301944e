import Foundation
import Lupine
import NIOConcurrencyHelpers
import NIOCore

/// Puts a response body on standard output as it streams in.
///
/// When standard output is not a terminal the exact bytes go out, chunk by chunk, and nothing is
/// added. On a terminal, for a person: JSON (up to ``prettyLimit``) is pretty-printed with sorted
/// keys, text is shown as it comes with control characters (an escape sequence from a hostile
/// server) shown as `.`, a final newline is added when missing, and a binary body is summarised
/// in one line instead of dumped.
final class BodyPrinter: Sendable {
    /// The largest JSON body held back to be pretty-printed; a longer one is shown as text.
    static let prettyLimit = 8 * 1024 * 1024

    private enum Mode {
        /// The exact bytes (standard output is not a terminal).
        case raw
        /// Waiting for the first bytes to tell text from binary.
        case sniffing
        case text(endsWithNewline: Bool)
        /// JSON held back to be pretty-printed.
        case json([UInt8])
        /// Binary: only its length is counted.
        case binary(count: Int)
    }

    private let mode: NIOLockedValueBox<Mode>
    private let write: @Sendable ([UInt8]) throws -> Void

    /// A printer for a terminal when `formatted`, else for a pipe or file; `write` puts bytes out.
    init(formatted: Bool, write: @escaping @Sendable ([UInt8]) throws -> Void = { try StandardOutput.write($0) }) {
        self.mode = NIOLockedValueBox(formatted ? .sniffing : .raw)
        self.write = write
    }

    /// Takes the response head: on a terminal, a JSON body is held back to be pretty-printed.
    func begin(_ head: ResponseHead) {
        self.mode.withLockedValue { mode in
            if case .sniffing = mode, head.mimeType?.contains("json") == true {
                mode = .json([])
            }
        }
    }

    /// Puts out (or holds back) one chunk of the body.
    func print(_ chunk: ByteBuffer) throws {
        let bytes = Array(chunk.readableBytesView)
        let output: [UInt8]? = self.mode.withLockedValue { mode in
            switch mode {
            case .raw:
                return bytes
            case .binary(let count):
                mode = .binary(count: count + bytes.count)
                return nil
            case .json(var held):
                held += bytes
                guard held.count > Self.prettyLimit else {
                    mode = .json(held)
                    return nil
                }
                mode = .sniffing
                return Self.shown(held, mode: &mode)
            case .sniffing, .text:
                return Self.shown(bytes, mode: &mode)
            }
        }
        if let output, !output.isEmpty {
            try self.write(output)
        }
    }

    /// Ends the body: pretty JSON, a missing final newline, or the binary summary.
    func finish() throws {
        let output: [UInt8] = self.mode.withLockedValue { mode in
            guard case .json(let held) = mode else { return Self.ending(mode) }
            if let pretty = Self.prettyJSON(held) {
                return pretty
            }
            mode = .sniffing
            return Self.shown(held, mode: &mode) + Self.ending(mode)
        }
        if !output.isEmpty {
            try self.write(output)
        }
    }

    /// What a terminal gets after the last bytes shown in `mode`.
    private static func ending(_ mode: Mode) -> [UInt8] {
        switch mode {
        case .text(endsWithNewline: false):
            return [0x0A]
        case .binary(let count):
            return Array("[binary body of \(count) bytes not shown on a terminal: redirect the output to keep it]\n".utf8)
        default:
            return []
        }
    }

    /// `bytes` as shown on a terminal, deciding text or binary on the first bytes seen.
    private static func shown(_ bytes: [UInt8], mode: inout Mode) -> [UInt8] {
        if case .sniffing = mode, !bytes.isEmpty {
            mode = Self.looksBinary(bytes) ? .binary(count: 0) : .text(endsWithNewline: false)
        }
        switch mode {
        case .binary(let count):
            mode = .binary(count: count + bytes.count)
            return []
        case .text:
            guard let last = bytes.last else { return [] }
            mode = .text(endsWithNewline: last == 0x0A)
            return bytes.map { Self.isShownAsIs($0) ? $0 : UInt8(ascii: ".") }
        default:
            return bytes
        }
    }

    /// Whether the first bytes of a body are binary: a NUL, or not UTF-8 (a sequence cut at the
    /// end of the sample is allowed).
    static func looksBinary(_ bytes: [UInt8]) -> Bool {
        let sample = bytes.prefix(4096)
        if sample.contains(0) { return true }
        var iterator = sample.makeIterator()
        var decoder = UTF8()
        var decoded = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                decoded += scalar.utf8Length
            case .emptyInput:
                return false
            case .error:
                // Invalid, unless it is a multi-byte character cut off by the sample's end.
                return sample.count - decoded > 3
            }
        }
    }

    /// Bytes a terminal shows as text: printable characters, tab, line feed, carriage return,
    /// and the bytes of multi-byte UTF-8 characters; not escape sequences or other controls.
    private static func isShownAsIs(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != 0x7F || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `bytes` as pretty-printed JSON with sorted keys and a final newline, or `nil` when they
    /// are not JSON.
    private static func prettyJSON(_ bytes: [UInt8]) -> [UInt8]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed),
            let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else { return nil }
        return Array(pretty) + [0x0A]
    }
}

extension Unicode.Scalar {
    /// The number of bytes of the scalar in UTF-8.
    fileprivate var utf8Length: Int { UTF8.width(self) }
}
