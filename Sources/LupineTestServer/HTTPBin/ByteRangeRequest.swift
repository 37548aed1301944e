import Foundation

/// How a request's `Range` and `If-Range` headers apply to a representation of known length.
///
/// Only a single `bytes` range is honoured; a multi-range or malformed `Range` is ignored, which
/// RFC 9110 allows, and the full representation is served.
enum ByteRangeRequest: Equatable {
    /// Serve the whole representation with 200.
    case full
    /// Serve these offsets with 206.
    case partial(Range<Int>)
    /// Answer 416.
    case unsatisfiable

    init(range: String?, ifRange: String?, entityTag: String, length: Int) {
        guard let range else {
            self = .full
            return
        }
        if let ifRange, ifRange.trimmingCharacters(in: .whitespaces) != entityTag {
            self = .full
            return
        }
        self = Self.parse(range, length: length)
    }

    private static func parse(_ header: String, length: Int) -> ByteRangeRequest {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .full }
        let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .full }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]

        if first.isEmpty {
            guard let suffixLength = Int(last), suffixLength >= 0 else { return .full }
            guard suffixLength > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - suffixLength)..<length)
        }
        guard let start = Int(first), start >= 0 else { return .full }
        let end: Int
        if last.isEmpty {
            end = length - 1
        } else {
            guard let parsed = Int(last), parsed >= start else { return .full }
            end = min(parsed, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .partial(start..<(end + 1))
    }
}
