/// Strings: the quoted text between the bytes, with its escapes and UTF-8 checked. ASCII
/// without escapes is copied straight; anything else goes through the escape and validation path.
extension JSONValueParser {
    /// Parses the string starting at the current `"`.
    mutating func parseString() throws(Failure) -> String {
        let start = self.index + 1
        let bytes = self.bytes
        // The fast path: no escapes, so the string is the bytes between the quotes. The index
        // lives in a local while scanning, where the compiler can keep it in a register.
        var end = start
        var isASCII = true
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                self.index = end + 1
                let utf8 = UnsafeBufferPointer(rebasing: bytes[start..<end])
                // ASCII is valid UTF-8 already; only other bytes need the full validation.
                return isASCII ? String(decoding: utf8, as: UTF8.self) : try self.validatedString(utf8)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else {
                self.index = end
                throw self.failure("unescaped control character \(Self.describe(byte)) in a string")
            }
            isASCII = isASCII && byte < 0x80
            end += 1
        }
        self.index = end
        var unescaped = Array(self.bytes[start..<self.index])
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try unescaped.withUnsafeBufferPointer { buffer throws(Failure) in try self.validatedString(buffer) }
            case UInt8(ascii: "\\"):
                try self.appendEscape(to: &unescaped)
            case ..<0x20:
                self.index -= 1
                throw self.failure("unescaped control character \(Self.describe(byte)) in a string")
            default:
                unescaped.append(byte)
            }
        }
        throw self.failure("unterminated string")
    }

    private func validatedString(_ utf8: UnsafeBufferPointer<UInt8>) throws(Failure) -> String {
        guard let string = String(validating: utf8, as: UTF8.self) else { throw self.failure("invalid UTF-8 in a string") }
        return string
    }

    /// Decodes the escape after a backslash and appends its UTF-8 bytes.
    private mutating func appendEscape(to output: inout [UInt8]) throws(Failure) {
        guard let byte = self.peek() else { throw self.failure("unterminated escape") }
        self.index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            let scalar = try self.parseUnicodeEscape()
            UTF8.encode(scalar) { output.append($0) }
        default:
            self.index -= 1
            throw self.failure("invalid escape \\\(Self.describe(byte))")
        }
    }

    /// The scalar of a `\uXXXX` escape, joining a surrogate pair written as two escapes.
    private mutating func parseUnicodeEscape() throws(Failure) -> Unicode.Scalar {
        let first = try self.parseHexQuad()
        switch first {
        case 0xD800...0xDBFF:
            guard self.bytes.count - self.index >= 2, self.bytes[self.index] == UInt8(ascii: "\\"),
                self.bytes[self.index + 1] == UInt8(ascii: "u")
            else { throw self.failure("a high surrogate without its low surrogate") }
            self.index += 2
            let second = try self.parseHexQuad()
            guard (0xDC00...0xDFFF).contains(second),
                let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            else { throw self.failure("a high surrogate without its low surrogate") }
            return scalar
        case 0xDC00...0xDFFF:
            throw self.failure("a low surrogate without its high surrogate")
        default:
            guard let scalar = Unicode.Scalar(first) else { throw self.failure("invalid \\u escape") }
            return scalar
        }
    }

    private mutating func parseHexQuad() throws(Failure) -> UInt32 {
        guard self.bytes.count - self.index >= 4 else { throw self.failure("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = self.bytes[self.index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw self.failure("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            self.index += 1
        }
        return value
    }
}
