import Foundation

/// A header value of the form `token; name=value; name="quoted value"`, as used by
/// `Content-Type` and `Content-Disposition`.
struct HeaderValueParameters {
    /// The leading token, lowercased (for example `multipart/form-data`).
    let value: String
    /// Parameters by lowercased name, with quotes removed.
    let parameters: [String: String]

    /// Parses `header` by Unicode scalars, not Characters: a quote or separator followed by a
    /// combining mark is still a quote or separator (found by the multipart fuzzer).
    init(_ header: String) {
        var segments: [String.UnicodeScalarView] = []
        var current = String.UnicodeScalarView()
        var inQuotes = false
        for scalar in header.unicodeScalars {
            if scalar == "\"" {
                inQuotes.toggle()
                current.append(scalar)
            } else if scalar == ";" && !inQuotes {
                segments.append(current)
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        segments.append(current)

        self.value = String(segments[0]).trimmingCharacters(in: .whitespaces).lowercased()
        var parameters: [String: String] = [:]
        for segment in segments.dropFirst() {
            let parts = segment.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = String(parts[0]).trimmingCharacters(in: .whitespaces).lowercased()
            var value = String(parts[1]).trimmingCharacters(in: .whitespaces).unicodeScalars[...]
            if value.count >= 2, value.first == "\"", value.last == "\"" {
                value = value.dropFirst().dropLast()
            }
            parameters[name] = String(value)
        }
        self.parameters = parameters
    }
}
