import Foundation

/// How a finished download is moved to its destination.
public struct DownloadOptions: OptionSet, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Create the destination's missing parent folders.
    public static let createIntermediateDirectories = DownloadOptions(rawValue: 1 << 0)
    /// Replace a file already at the destination.
    public static let removePreviousFile = DownloadOptions(rawValue: 1 << 1)
}

/// Chooses where a finished download goes, from its temporary file and the response head; the
/// file is moved there as the options say. AFNetworking's `destination` block.
public typealias DownloadDestination = @Sendable (_ temporaryURL: URL, _ response: ResponseHead) -> (url: URL, options: DownloadOptions)
