import Foundation

/// A header value of the form `token; name=value; name="quoted value"`, as used by
/// `Content-Type` and `Content-Disposition`.
struct HeaderValueParameters {
    /// The leading token, lowercased (for example `multipart/form-data`).
    let value: String
    /// Parameters by lowercased name, with quotes removed.
    let parameters: [String: String]

    init(_ header: String) {
        var segments: [String] = []
        var current = ""
        var inQuotes = false
        for character in header {
            if character == "\"" {
                inQuotes.toggle()
                current.append(character)
            } else if character == ";" && !inQuotes {
                segments.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        segments.append(current)

        self.value = segments[0].trimmingCharacters(in: .whitespaces).lowercased()
        var parameters: [String: String] = [:]
        for segment in segments.dropFirst() {
            let parts = segment.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            var value = parts[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            parameters[name] = value
        }
        self.parameters = parameters
    }
}
