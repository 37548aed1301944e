import Foundation

/// How a finished download is moved to its destination.
public struct DownloadOptions: OptionSet, Sendable {
    /// The options as bits.
    public let rawValue: Int

    /// Options from their bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Create the destination's missing parent folders.
    public static let createIntermediateDirectories = DownloadOptions(rawValue: 1 << 0)
    /// Replace a regular file already at the destination, atomically (a symbolic link is followed
    /// to the file it names). Anything else there, a directory, device, FIFO or socket, is never
    /// replaced: the download fails with ``LupineError/DownloadFailureReason/destinationNotReplaceable(_:reason:)``.
    public static let removePreviousFile = DownloadOptions(rawValue: 1 << 1)
}
