import Foundation

/// A response's status line and header fields, and the URL it answers (after redirects).
public struct ResponseHead: Sendable {
    /// The status.
    public var status: HTTPResponseStatus
    /// The header fields.
    public var headers: HTTPHeaders
    /// The URL of the request this response answers.
    public var url: URL

    /// Creates a response head.
    public init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], url: URL) {
        self.status = status
        self.headers = headers
        self.url = url
    }

    /// The status code.
    public var statusCode: Int { Int(self.status.code) }

    /// The media type of `Content-Type`, lowercased and without parameters, or `nil`.
    public var mimeType: String? {
        guard let contentType = self.headers.first(name: "Content-Type") else { return nil }
        let type = contentType.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        return type?.isEmpty == false ? type : nil
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
