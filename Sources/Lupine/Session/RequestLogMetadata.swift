import Foundation
import Logging

/// What the session logs about a request or response, with credentials left out: the
/// `Authorization`, `Cookie`, `Proxy-Authorization` and `Set-Cookie` values are redacted and URLs
/// lose their user-info.
enum RequestLogMetadata {
    /// Header fields whose values are never logged.
    static let redactedHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization", "set-cookie"]

    /// The placeholder logged instead of a redacted value.
    static let redactedValue = "<redacted>"

    static func request(_ request: Request, task: SessionTask) -> Logger.Metadata {
        [
            "task": "\(task.taskIdentifier)",
            "method": "\(request.method.rawValue)",
            "url": "\(Self.loggable(request.url))",
            "headers": Self.loggable(request.headers),
        ]
    }

    static func response(_ head: ResponseHead, task: SessionTask) -> Logger.Metadata {
        [
            "task": "\(task.taskIdentifier)",
            "status": "\(head.statusCode)",
            "url": "\(Self.loggable(head.url))",
            "headers": Self.loggable(head.headers),
        ]
    }

    /// `headers` with the credential-bearing values replaced by ``redactedValue``.
    static func loggable(_ headers: HTTPHeaders) -> Logger.MetadataValue {
        .array(
            headers.map { name, value in
                let shown = Self.redactedHeaders.contains(name.lowercased()) ? Self.redactedValue : value
                return "\(name): \(shown)"
            }
        )
    }

    /// `url` without user name and password.
    static func loggable(_ url: URL) -> String {
        if let split = url.splittingUserInfo() {
            return split.url.absoluteString
        }
        return url.user == nil ? url.absoluteString : "<url with credentials>"
    }
}
