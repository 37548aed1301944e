/// The XML that Foundation's `XMLParser` and `XMLDocument` on Linux cannot be given, found by a
/// byte scan before they see it, each class named with the reason (issue 29; swift-corelibs-foundation
/// with libxml2 2.9).
///
/// `XMLParser` parses with libxml2 in recovery mode and force-unwraps what libxml2 hands its
/// callbacks, so a stranger's body could trap the process:
/// - bytes that are not UTF-8 reach element, attribute and namespace names (libxml2 falls back to
///   Latin-1 and copies them raw; the callback's `String` is `nil`): a trap;
/// - a processing instruction with no data (`<?pi?>`), and the declarations of an internal DTD
///   subset (`<!NOTATION`, `<!ATTLIST`, an unparsed `<!ENTITY`, or an entity that expands to such
///   a processing instruction), give a callback a null pointer: a segmentation fault;
/// - `XMLDocument` crashes on a document libxml2 cannot read at all (an unknown declared encoding,
///   UTF-16 with a lone surrogate) and returns strings that crash when read for bytes that are
///   not UTF-8.
///
/// So a body is read only when it is UTF-8 with no NUL byte, declares no other encoding (an
/// ASCII-compatible one is fine when every byte is ASCII), has no
/// internal DTD subset and no processing instruction without data. A `<!DOCTYPE>` that only names
/// an external DTD (`<!DOCTYPE html>`, a property list's) is fine: external DTDs are never loaded.
/// The scan does not tell markup from text: `<?x?>` or `<!ENTITY` inside a comment or CDATA
/// section is refused too, the price of refusing before any parser runs.
enum XMLInputGuard {
    /// Why `bytes` must not reach Foundation's XML parsers, or `nil` when they may.
    static func refusal(of bytes: [UInt8]) -> String? {
        if let zero = bytes.firstIndex(of: 0) {
            return "the body holds a NUL byte at offset \(zero)"
        }
        if String(validating: bytes, as: UTF8.self) == nil {
            return "the body is not UTF-8 (Foundation's XML parser on Linux cannot read other bytes safely)"
        }
        if let encoding = Self.declaredEncoding(in: bytes), !Self.utf8Names.contains(encoding),
            !(Self.asciiCompatibleNames.contains(encoding) && bytes.allSatisfy { $0 < 0x80 })
        {
            return "the document declares the encoding \"\(encoding)\"; only UTF-8 (or ASCII bytes under an ASCII-compatible name) is read"
        }
        if Self.hasInternalSubset(bytes) {
            return "the document has an internal DTD subset (declarations in <!DOCTYPE … [ … ]>), which is not read"
        }
        if let offset = Self.processingInstructionWithoutData(in: bytes) {
            return "the processing instruction at offset \(offset) has no data, which Foundation's XML parser on Linux cannot read"
        }
        return nil
    }

    private static let commentStart = Array("<!--".utf8)
    private static let commentEnd = Array("-->".utf8)
    private static let cdataStart = Array("<![CDATA[".utf8)
    private static let cdataEnd = Array("]]>".utf8)
    private static let doctype = Array("<!DOCTYPE".utf8)

    private static let utf8Names: Set<String> = ["utf-8", "utf8"]
    /// Encodings whose ASCII bytes mean what they mean in UTF-8 (httpbin's `/xml` declares
    /// `us-ascii`): a body of ASCII bytes alone is read under them.
    private static let asciiCompatibleNames: Set<String> = [
        "us-ascii", "ascii", "iso-8859-1", "iso8859-1", "latin1", "iso-8859-2", "iso-8859-15", "windows-1252", "cp1252", "shift_jis",
    ]

    /// The encoding the XML declaration at the start names, lowercased, if it names one.
    private static func declaredEncoding(in bytes: [UInt8]) -> String? {
        var start = bytes.startIndex
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            start += 3
        }
        guard bytes[start...].starts(with: "<?xml".utf8) else { return nil }
        let end = Self.firstIndex(of: Array("?>".utf8), in: bytes, from: start) ?? bytes.endIndex
        let declaration = String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
        guard let name = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[name.upperBound...].drop { $0.isWhitespace }
        guard rest.first == "=" else { return "(malformed)" }
        let value = rest.dropFirst().drop { $0.isWhitespace }
        guard let quote = value.first, quote == "\"" || quote == "'" else { return "(malformed)" }
        return String(value.dropFirst().prefix { $0 != quote })
    }

    /// Whether a `<!DOCTYPE` has a `[` before its end (quoted text skipped), or a declaration that
    /// only an internal subset holds appears anywhere (in case the scan and libxml2 disagree on
    /// where a malformed `<!DOCTYPE` ends).
    private static func hasInternalSubset(_ bytes: [UInt8]) -> Bool {
        for keyword in ["<!ENTITY", "<!NOTATION", "<!ATTLIST", "<!ELEMENT"] where Self.firstIndex(of: Array(keyword.utf8), in: bytes, from: 0, ignoringCase: true) != nil {
            return true
        }
        // One pass: comments and CDATA sections are text (a quote in one must not hide a real
        // `<!DOCTYPE`'s `[`), a `<!DOCTYPE` is scanned to its end.
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if Self.matches(Self.commentStart, in: bytes, at: index) {
                index = Self.firstIndex(of: Self.commentEnd, in: bytes, from: index + 4).map { $0 + 3 } ?? bytes.endIndex
            } else if Self.matches(Self.cdataStart, in: bytes, at: index) {
                index = Self.firstIndex(of: Self.cdataEnd, in: bytes, from: index + 9).map { $0 + 3 } ?? bytes.endIndex
            } else if Self.matches(Self.doctype, in: bytes, at: index, ignoringCase: true) {
                index += 9
                var quote: UInt8?
                while index < bytes.endIndex {
                    let byte = bytes[index]
                    index += 1
                    if let open = quote {
                        if byte == open { quote = nil }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: "[") {
                        return true
                    } else if byte == UInt8(ascii: ">") {
                        break
                    }
                }
            } else {
                index += 1
            }
        }
        return false
    }

    /// The offset of a `<?` whose target runs straight into `?>`, with no data after it.
    private static func processingInstructionWithoutData(in bytes: [UInt8]) -> Int? {
        var from = bytes.startIndex
        while let open = Self.firstIndex(of: Array("<?".utf8), in: bytes, from: from) {
            var index = open + 2
            while index < bytes.endIndex, ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
                if bytes[index] == UInt8(ascii: "?"), index + 1 < bytes.endIndex, bytes[index + 1] == UInt8(ascii: ">") {
                    return open
                }
                index += 1
            }
            // A `<?` inside the run just scanned ends at the same whitespace: one pass in all.
            from = index
        }
        return nil
    }

    /// Where `pattern` first occurs in `bytes` at or after `from`; ASCII letters compared without
    /// case when asked.
    private static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from: Int, ignoringCase: Bool = false) -> Int? {
        guard !pattern.isEmpty, bytes.count >= pattern.count, from >= 0, from <= bytes.count - pattern.count else { return nil }
        var index = from
        while index <= bytes.count - pattern.count {
            if Self.matches(pattern, in: bytes, at: index, ignoringCase: ignoringCase) {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Whether `pattern` occurs in `bytes` at `index`.
    private static func matches(_ pattern: [UInt8], in bytes: [UInt8], at index: Int, ignoringCase: Bool = false) -> Bool {
        guard index >= 0, bytes.count - index >= pattern.count else { return false }
        func folded(_ byte: UInt8) -> UInt8 {
            ignoringCase && byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
        }
        for offset in pattern.indices where folded(bytes[index + offset]) != folded(pattern[offset]) {
            return false
        }
        return true
    }
}
