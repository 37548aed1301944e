/// A strict RFC 8259 parser that builds ``JSONResponseSerializer``'s `Sendable` values straight
/// from UTF-8 bytes.
///
/// `JSONSerialization` builds Foundation objects that must then be cast, one dynamic cast per
/// value, into `Sendable` ones; on Linux those casts try Objective-C bridging and cost more than
/// the parse itself. This parser makes the final values directly: objects `[String: any Sendable]`,
/// arrays `[any Sendable]`, strings, `Bool`, numbers `Int` (`UInt64` above `Int.max`, `Double` with
/// a fraction, an exponent, or beyond both), and `null` ``JSONNull``.
struct JSONValueParser {
    /// Why the bytes are not JSON, with the byte offset where that became clear.
    struct Failure: Error, Sendable {
        let reason: String
    }

    /// The deepest nesting of arrays and objects accepted, as `JSONSerialization`'s limit.
    static let maximumDepth = 512

    let bytes: UnsafeBufferPointer<UInt8>
    private let removingNulls: Bool
    var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>, removingNulls: Bool) {
        self.bytes = bytes
        self.removingNulls = removingNulls
    }

    /// Parses one JSON text. Without `allowingFragments` it must be an object or an array. With
    /// `removingNulls`, `null` values are left out of objects and arrays at every depth.
    static func parse(_ bytes: [UInt8], allowingFragments: Bool, removingNulls: Bool) throws(Failure) -> any Sendable {
        let result: Result<any Sendable, Failure> = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONValueParser(bytes: buffer, removingNulls: removingNulls)
            return Result { () throws(Failure) in try parser.parseDocument(allowingFragments: allowingFragments) }
        }
        return try result.get()
    }

    private mutating func parseDocument(allowingFragments: Bool) throws(Failure) -> any Sendable {
        // A UTF-8 byte order mark is tolerated, as `JSONSerialization` does.
        if self.bytes.count >= 3 && self.bytes[0] == 0xEF && self.bytes[1] == 0xBB && self.bytes[2] == 0xBF {
            self.index = 3
        }
        self.skipWhitespace()
        guard let first = self.peek() else { throw self.failure("no value") }
        if !allowingFragments && first != UInt8(ascii: "{") && first != UInt8(ascii: "[") {
            throw self.failure("the top level is not an object or an array (fragments are not allowed)")
        }
        let value = try self.parseValue()
        self.skipWhitespace()
        guard self.index == self.bytes.count else { throw self.failure("unexpected bytes after the value") }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(Failure) -> any Sendable {
        guard let byte = self.peek() else { throw self.failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try self.parseObject()
        case UInt8(ascii: "["): return try self.parseArray()
        case UInt8(ascii: "\""): return try self.parseString()
        case UInt8(ascii: "t"): try self.expectLiteral("true"); return true
        case UInt8(ascii: "f"): try self.expectLiteral("false"); return false
        case UInt8(ascii: "n"): try self.expectLiteral("null"); return JSONNull()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try self.parseNumber()
        default: throw self.failure("unexpected character \(Self.describe(byte))")
        }
    }

    private mutating func parseObject() throws(Failure) -> [String: any Sendable] {
        try self.enterContainer()
        self.skipWhitespace()
        if self.consume(UInt8(ascii: "}")) {
            self.depth -= 1
            return [:]
        }
        // Room for a typical small object at once, rather than growing through 1, 2, 4 and 8.
        var object = [String: any Sendable](minimumCapacity: 8)
        while true {
            self.skipWhitespace()
            guard self.peek() == UInt8(ascii: "\"") else { throw self.failure("expected a string key") }
            let key = try self.parseString()
            self.skipWhitespace()
            guard self.consume(UInt8(ascii: ":")) else { throw self.failure("expected ':' after a key") }
            self.skipWhitespace()
            let value = try self.parseValue()
            if !(self.removingNulls && value is JSONNull) {
                object[key] = value
            }
            self.skipWhitespace()
            if self.consume(UInt8(ascii: ",")) { continue }
            guard self.consume(UInt8(ascii: "}")) else { throw self.failure("expected ',' or '}' in an object") }
            self.depth -= 1
            return object
        }
    }

    private mutating func parseArray() throws(Failure) -> [any Sendable] {
        try self.enterContainer()
        var array: [any Sendable] = []
        self.skipWhitespace()
        if self.consume(UInt8(ascii: "]")) {
            self.depth -= 1
            return array
        }
        while true {
            self.skipWhitespace()
            let value = try self.parseValue()
            if !(self.removingNulls && value is JSONNull) {
                array.append(value)
            }
            self.skipWhitespace()
            if self.consume(UInt8(ascii: ",")) { continue }
            guard self.consume(UInt8(ascii: "]")) else { throw self.failure("expected ',' or ']' in an array") }
            self.depth -= 1
            return array
        }
    }

    /// Steps over the opening bracket, refusing nesting deeper than ``maximumDepth``.
    private mutating func enterContainer() throws(Failure) {
        guard self.depth < Self.maximumDepth else {
            throw self.failure("arrays and objects nested deeper than \(Self.maximumDepth)")
        }
        self.depth += 1
        self.index += 1
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard self.bytes.count - self.index >= expected.count,
            self.bytes[self.index..<self.index + expected.count].elementsEqual(expected)
        else { throw self.failure("invalid literal (expected \(literal))") }
        self.index += expected.count
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as RFC 8259 §6 writes it.
    private mutating func parseNumber() throws(Failure) -> any Sendable {
        let start = self.index
        _ = self.consume(UInt8(ascii: "-"))
        if self.consume(UInt8(ascii: "0")) {
            if let next = self.peek(), Self.isDigit(next) { throw self.failure("a number with a leading zero") }
        } else if self.consumeDigits() == 0 {
            throw self.failure("a number without digits")
        }
        var isInteger = true
        if self.consume(UInt8(ascii: ".")) {
            isInteger = false
            guard self.consumeDigits() > 0 else { throw self.failure("a number without digits after '.'") }
        }
        if self.consume(UInt8(ascii: "e")) || self.consume(UInt8(ascii: "E")) {
            isInteger = false
            _ = self.consume(UInt8(ascii: "+")) || self.consume(UInt8(ascii: "-"))
            guard self.consumeDigits() > 0 else { throw self.failure("a number without digits in its exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: self.bytes[start..<self.index]), as: UTF8.self)
        if isInteger {
            if let integer = Int(text) { return integer }
            if let unsigned = UInt64(text) { return unsigned }
        }
        guard let double = Double(text), double.isFinite else { throw self.failure("a number out of range") }
        return double
    }

    /// Steps over a run of digits and says how many there were.
    private mutating func consumeDigits() -> Int {
        let start = self.index
        while let byte = self.peek(), Self.isDigit(byte) {
            self.index += 1
        }
        return self.index - start
    }

    // MARK: Bytes

    func peek() -> UInt8? {
        self.index < self.bytes.count ? self.bytes[self.index] : nil
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard self.peek() == byte else { return false }
        self.index += 1
        return true
    }

    mutating func skipWhitespace() {
        while let byte = self.peek(),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
        {
            self.index += 1
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(String(byte, radix: 16, uppercase: true))"
    }

    func failure(_ what: String) -> Failure {
        Failure(reason: "\(what) at byte \(self.index)")
    }
}
