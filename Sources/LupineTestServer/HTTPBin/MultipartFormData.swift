import Foundation

/// A parsed `multipart/form-data` body.
struct MultipartFormData {
    /// One part of the body.
    struct Part {
        /// The `name` parameter of the part's `Content-Disposition`.
        let name: String
        /// The `filename` parameter, present for file fields.
        let filename: String?
        /// The part's content.
        let content: [UInt8]
    }

    let parts: [Part]

    /// Parses `body` delimited by `boundary`, or returns nil when it is not well formed.
    init?(body: [UInt8], boundary: String) {
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n--\(boundary)".utf8)
        let crlf = Array("\r\n".utf8)
        let headerEnd = Array("\r\n\r\n".utf8)

        guard let first = body.firstRange(of: delimiter) else { return nil }
        var cursor = first.upperBound
        var parts: [Part] = []
        while true {
            let rest = body[cursor...]
            if rest.starts(with: Array("--".utf8)) { break }
            guard rest.starts(with: crlf) else { return nil }
            let partStart = cursor + crlf.count
            guard let next = body[partStart...].firstRange(of: separator) else { return nil }
            let partBytes = body[partStart..<next.lowerBound]
            guard let split = partBytes.firstRange(of: headerEnd) else { return nil }
            let headers = Self.headers(String(decoding: partBytes[..<split.lowerBound], as: UTF8.self))
            let disposition = HeaderValueParameters(headers["content-disposition"] ?? "")
            guard let name = disposition.parameters["name"] else { return nil }
            parts.append(
                Part(
                    name: name,
                    filename: disposition.parameters["filename"],
                    content: Array(partBytes[split.upperBound...])
                )
            )
            cursor = next.upperBound
        }
        self.parts = parts
    }

    private static func headers(_ text: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in text.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            headers[parts[0].trimmingCharacters(in: .whitespaces).lowercased()] =
                parts[1].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }
}
