import Foundation
/// Whether a data task goes on after its response head arrived.
public enum ResponseDisposition: Sendable, Equatable {
    /// Read the body.
    case allow
    /// Cancel the task.
    case cancel
}

/// The closures a session or a single task may set to steer requests, as AFNetworking's block
/// setters. A task's own hook, when set, is asked instead of the session's.
public struct SessionHooks: Sendable {
    /// Asked before following a redirect with the response and the request Lupine would send
    /// next; return it (possibly changed) to follow, or `nil` to stop and deliver the redirect response.
    public var willPerformRedirection: (@Sendable (SessionTask, ResponseHead, Request) -> Request?)?
    /// Asked when the server demands credentials.
    public var didReceiveChallenge: (@Sendable (SessionTask, AuthenticationChallenge) -> AuthenticationDisposition)?
    /// Asked, while a connection's TLS handshake runs, for the identity to present to a server
    /// that requests a client certificate (mutual TLS; AFNetworking's
    /// `NSURLAuthenticationMethodClientCertificate` challenge), or `nil` to present the
    /// transport's own, if any. Only a server that asks causes a call. The session's hook is
    /// one provider for all its tasks, so their connections are shared; a task's own hook gets
    /// connections of its own.
    public var didReceiveClientCertificateChallenge: (@Sendable (ClientCertificateChallenge) async -> ClientIdentity?)?
    /// Asked when a response head arrives.
    public var didReceiveResponse: (@Sendable (SessionTask, ResponseHead) -> ResponseDisposition)?
    /// Told about each body chunk as it arrives.
    public var didReceiveData: (@Sendable (SessionTask, ByteBuffer) -> Void)?
    /// Told when a task completes, with its error if it failed.
    public var didComplete: (@Sendable (SessionTask, LupineError?) -> Void)?
    /// Asked before a response goes into the session's cache (AFNetworking's
    /// `dataTaskWillCacheResponse`): return it, changed or not, to store it, or `nil` to store
    /// nothing. The first set of these decides: the request's ``CachedResponseHandler``, the task's
    /// hook, the session's handler, the session's hook (as for redirects).
    public var dataTaskWillCacheResponse: (@Sendable (SessionTask, CachedResponse) -> CachedResponse?)?
    /// Asked where a finished download goes when its task has no ``DownloadDestination`` of its
    /// own (AFNetworking's `setDownloadTaskDidFinishDownloadingBlock:`), with the temporary file
    /// and the response: the file moves to the file URL returned (nothing there is replaced, not
    /// even by another download sent there at the same moment: one of them fails with
    /// ``LupineError/DownloadFailureReason/cannotMoveFile(from:to:reason:)``; a URL that is no file URL or
    /// ends in `/` fails with ``LupineError/DownloadFailureReason/destinationNotReplaceable(_:reason:)``), or
    /// stays where it is for `nil`.
    public var downloadTaskDidFinishDownloading: (@Sendable (SessionTask, URL, ResponseHead) -> URL?)?

    /// No hooks.
    public init() {}

    /// `self`, with each hook that `override` sets taking precedence.
    func overridden(by override: SessionHooks) -> SessionHooks {
        var merged = self
        merged.willPerformRedirection = override.willPerformRedirection ?? self.willPerformRedirection
        merged.didReceiveChallenge = override.didReceiveChallenge ?? self.didReceiveChallenge
        merged.didReceiveClientCertificateChallenge = override.didReceiveClientCertificateChallenge ?? self.didReceiveClientCertificateChallenge
        merged.didReceiveResponse = override.didReceiveResponse ?? self.didReceiveResponse
        merged.didReceiveData = override.didReceiveData ?? self.didReceiveData
        merged.didComplete = override.didComplete ?? self.didComplete
        merged.dataTaskWillCacheResponse = override.dataTaskWillCacheResponse ?? self.dataTaskWillCacheResponse
        merged.downloadTaskDidFinishDownloading = override.downloadTaskDidFinishDownloading ?? self.downloadTaskDidFinishDownloading
        return merged
    }
}
