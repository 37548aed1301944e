import Foundation

/// One request item of httpie's syntax: `key==value` (query), `key=value` (data field),
/// `key:=json` (raw JSON field), `field@path` (file field: the body becomes multipart),
/// `Header:value` (a header; repeated, each value is sent; `Header:` with no value removes the
/// header, a default one too) or `Header;` (the header, sent empty).
enum RequestItem: Equatable {
    case query(name: String, value: String)
    case field(name: String, value: String)
    case jsonField(name: String, json: String)
    case header(name: String, value: String)
    case emptyHeader(name: String)
    case file(name: String, path: String)

    /// The separators, longest first so that `==` wins over `=` and `:=` over `:` at the same position.
    private static let separators = ["==", ":=", "=", ":", "@", ";"]

    /// Parses `argument`, splitting at the earliest separator; `nil` when there is none, the name
    /// is empty, or `Header;` has something after its `;`. Separators are found among the
    /// argument's bytes, not its Characters: `=` followed by a combining mark is still `=`
    /// (found by the request-item fuzzer).
    init?(_ argument: String) {
        var earliest: (range: Range<String.Index>, separator: String)?
        for separator in Self.separators {
            guard let range = Self.firstRange(of: separator, in: argument) else { continue }
            if let current = earliest, current.range.lowerBound <= range.lowerBound { continue }
            earliest = (range, separator)
        }
        guard let (range, separator) = earliest else { return nil }
        let name = String(argument[..<range.lowerBound])
        let value = String(argument[range.upperBound...])
        guard !name.isEmpty else { return nil }
        switch separator {
        case "==": self = .query(name: name, value: value)
        case ":=": self = .jsonField(name: name, json: value)
        case "=": self = .field(name: name, value: value)
        case "@": self = .file(name: name, path: value)
        case ";":
            guard value.isEmpty else { return nil }
            self = .emptyHeader(name: name)
        default: self = .header(name: name, value: value.trimmingCharacters(in: .whitespaces))
        }
    }

    /// Where the ASCII `separator` first stands in `text`, by bytes.
    private static func firstRange(of separator: String, in text: String) -> Range<String.Index>? {
        let bytes = text.utf8
        let wanted = Array(separator.utf8)
        var start = bytes.startIndex
        while start != bytes.endIndex {
            if bytes[start...].starts(with: wanted) {
                return start..<bytes.index(start, offsetBy: wanted.count)
            }
            start = bytes.index(after: start)
        }
        return nil
    }
}
