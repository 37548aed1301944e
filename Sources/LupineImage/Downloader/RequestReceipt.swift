import Foundation
import Lupine

/// What ``ImageDownloader/downloadImage(for:receiptID:completionQueue:success:failure:)`` hands
/// back for a download it started or joined, as AFNetworking's `AFImageDownloadReceipt`: give it
/// to ``ImageDownloader/cancelTask(for:)`` to stop waiting for that download.
public struct RequestReceipt: Sendable {
    /// Tells this caller's wait apart from the others' on the same download.
    public let receiptID: UUID
    /// The request the caller asked for.
    public let request: Request

    /// The download's key: the URL's absolute string.
    var key: String { self.request.url.absoluteString }
}

/// Errors of ``ImageDownloader`` itself; the others are `LupineError`s from the session.
public enum ImageDownloaderError: Error, Sendable, CustomStringConvertible {
    /// The caller's receipt was cancelled (``ImageDownloader/cancelTask(for:)``, or the Swift task
    /// awaiting the download was cancelled); other callers of the same URL are not affected.
    case cancelled(URL)

    /// AFNetworking's message, `ImageDownloader cancelled URL request: <url>`, with a password
    /// or token in the URL's user-info replaced by `***`.
    public var description: String {
        switch self {
        case .cancelled(let url):
            return "ImageDownloader cancelled URL request: \(Self.redacted(url))"
        }
    }

    private static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.user != nil || components.password != nil else {
            return url.absoluteString
        }
        components.user = "***"
        components.password = nil
        return components.string ?? "***"
    }
}
