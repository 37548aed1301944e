import Foundation

/// Chooses where a finished download goes, from its temporary file and the response head; the
/// file is moved there as the options say. AFNetworking's `destination` block.
public typealias DownloadDestination = @Sendable (_ temporaryURL: URL, _ response: ResponseHead) -> (url: URL, options: DownloadOptions)
