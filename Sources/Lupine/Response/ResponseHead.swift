import Foundation

/// A response's status line and header fields, and the URL it answers (after redirects).
public struct ResponseHead: Sendable {
    /// The status.
    public var status: HTTPResponseStatus
    /// The header fields.
    public var headers: HTTPHeaders
    /// The URL of the request this response answers.
    public var url: URL
    /// The HTTP version the response came in: 2.0 over HTTP/2, 1.1 otherwise (a response made
    /// here or read back from a cache included).
    public var version: HTTPVersion

    /// Creates a response head.
    public init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], url: URL, version: HTTPVersion = .http1_1) {
        self.status = status
        self.headers = headers
        self.url = url
        self.version = version
    }

    /// The status code.
    public var statusCode: Int { Int(self.status.code) }

    /// The media type of `Content-Type`, lowercased and without parameters, or `nil`.
    public var mimeType: String? {
        guard let contentType = self.headers.first(name: "Content-Type") else { return nil }
        // Read on every response, so a byte scan rather than Foundation's character sets.
        let utf8 = contentType.utf8
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var lower = utf8.startIndex
        var upper = utf8.firstIndex(of: UInt8(ascii: ";")) ?? utf8.endIndex
        while lower < upper, isBlank(utf8[lower]) {
            utf8.formIndex(after: &lower)
        }
        while upper > lower, isBlank(utf8[utf8.index(before: upper)]) {
            utf8.formIndex(before: &upper)
        }
        guard lower < upper else { return nil }
        let hasUppercase = utf8[lower..<upper].contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        if !hasUppercase && lower == utf8.startIndex && upper == utf8.endIndex {
            // The usual `application/json`: the header's own string, no copy.
            return contentType
        }
        let mimeType = String(contentType[lower..<upper])
        return hasUppercase ? mimeType.lowercased() : mimeType
    }

    /// The `charset` parameter of `Content-Type`, lowercased and unquoted, or `nil`.
    public var textEncodingName: String? {
        guard let contentType = self.headers.first(name: "Content-Type") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "charset" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
            }
        }
        return nil
    }
}
