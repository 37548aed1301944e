import NIOConcurrencyHelpers
import Foundation
import Lupine

/// AFNetworking's `AFImageDownloader`: downloads images through a `SessionManager`, at most
/// ``maximumActiveDownloads`` at a time, the others waiting in ``downloadPrioritization`` order.
///
/// Requests for a URL already being downloaded join that download: one request goes to the
/// server and every caller gets the same response. Each caller holds a ``RequestReceipt``;
/// cancelling it fails only that caller's handler (with ``ImageDownloaderError/cancelled(_:)``),
/// and the download itself is cancelled only when nobody is left waiting for it. Images are
/// answered from ``imageCache`` when the request's cache policy allows it, and the ones
/// downloaded are offered to it.
///
/// Handlers run on the queue the caller names, else on the session manager's
/// `SessionManager/completionQueue`, else on a serial queue the downloader owns. A downloader
/// released while it still has downloads lives until they have ended: every handler is called.
public final class ImageDownloader: Sendable {
    /// Called with the request, the response (`nil` when the image came from ``imageCache``) and the image.
    public typealias SuccessHandler = @Sendable (Request, ResponseHead?, Image) -> Void
    /// Called with the request, the response when one arrived, and a `LupineError` or an
    /// ``ImageDownloaderError``.
    public typealias FailureHandler = @Sendable (Request, ResponseHead?, any Error) -> Void

    /// One caller waiting for a download.
    struct ResponseHandler: Sendable {
        let request: Request
        let queue: DispatchQueue?
        let success: SuccessHandler?
        let failure: FailureHandler?
    }

    /// The manager downloads run on.
    public let sessionManager: SessionManager
    /// Where images are looked up before downloading and kept after; `nil` for none.
    public let imageCache: (any ImageRequestCache)?
    /// The order waiting downloads start in.
    public let downloadPrioritization: ImageDownloadPrioritization
    /// How many downloads run at once (at least 1).
    public let maximumActiveDownloads: Int
    private let imageSerializer: any ResponseSerializer
    private let ownQueue = DispatchQueue(label: "com.lupine.imagedownloader.completion")
    private let scheduler: NIOLockedValueBox<DownloadScheduler<ResponseHandler, DataTask>>

    /// A downloader on `sessionManager` whose responses `imageSerializer` turns into images.
    /// A `maximumActiveDownloads` below 1 counts as 1.
    public init<Serializer: ResponseSerializer>(
        sessionManager: SessionManager,
        imageSerializer: Serializer,
        downloadPrioritization: ImageDownloadPrioritization = .fifo,
        maximumActiveDownloads: Int = 4,
        imageCache: (any ImageRequestCache)? = AutoPurgingImageCache()
    ) where Serializer.SerializedObject == Image {
        let scheduler = DownloadScheduler<ResponseHandler, DataTask>(maximumActive: maximumActiveDownloads, prioritization: downloadPrioritization)
        self.sessionManager = sessionManager
        self.imageSerializer = imageSerializer
        self.imageCache = imageCache
        self.downloadPrioritization = downloadPrioritization
        self.maximumActiveDownloads = scheduler.maximumActive
        self.scheduler = NIOLockedValueBox(scheduler)
    }

    /// A downloader whose responses ``ImageResponseSerializer`` turns into images, on
    /// `sessionManager` (by default ``defaultSessionManager()``, AFNetworking's configuration).
    public convenience init(
        sessionManager: SessionManager = ImageDownloader.defaultSessionManager(),
        downloadPrioritization: ImageDownloadPrioritization = .fifo,
        maximumActiveDownloads: Int = 4,
        imageCache: (any ImageRequestCache)? = AutoPurgingImageCache()
    ) {
        self.init(
            sessionManager: sessionManager,
            imageSerializer: ImageResponseSerializer(),
            downloadPrioritization: downloadPrioritization,
            maximumActiveDownloads: maximumActiveDownloads,
            imageCache: imageCache
        )
    }

    /// Downloads the image `request` names, or answers it from ``imageCache``.
    ///
    /// - Returns: The receipt for cancelling this caller's wait; `nil` when there is nothing to
    ///   wait for: the image came from the cache (`success` is called with no response), or the
    ///   URL is not an `http` or `https` URL with a host (`failure` is called with
    ///   `LupineError/invalidURL(_:)`).
    /// - Parameters:
    ///   - request: The image's request.
    ///   - receiptID: Identifies this caller's wait in the receipt; `nil` for a new `UUID`, made
    ///     only when there is a wait to identify (a cache hit makes none).
    ///   - completionQueue: Where the handlers run; `nil` for the session manager's completion queue.
    ///   - success: Called with the request, the response (`nil` for a cached image) and the image.
    ///   - failure: Called with the request, the response when one arrived, and the error.
    @discardableResult
    public func downloadImage(
        for request: Request,
        receiptID: UUID? = nil,
        completionQueue: DispatchQueue? = nil,
        success: SuccessHandler?,
        failure: FailureHandler?
    ) -> RequestReceipt? {
        let handler = ResponseHandler(request: request, queue: completionQueue, success: success, failure: failure)
        guard Self.isDownloadable(request.url) else {
            self.deliver(to: handler) { $0.failure?(request, nil, LupineError.invalidURL(request.url.absoluteString)) }
            return nil
        }
        let key = request.url.absoluteString
        if Self.mayAnswerFromCache(request.cachePolicy) {
            // A download under way is joined before the cache is asked, as AFNetworking does.
            let joined: UUID? = self.scheduler.withLockedValue { scheduler in
                guard scheduler.isDownloading(key) else { return nil }
                let id = receiptID ?? UUID()
                scheduler.join(handler, receiptID: id, key: key)
                return id
            }
            if let joined {
                return RequestReceipt(receiptID: joined, request: request)
            }
            if let image = self.imageCache?.image(for: request, withAdditionalIdentifier: nil) {
                self.deliver(to: handler) { $0.success?(request, nil, image) }
                return nil
            }
        }
        let id = receiptID ?? UUID()
        let started: DataTask? = self.scheduler.withLockedValue { scheduler in
            guard case .created(let download, startsNow: true) = scheduler.admit(handler, receiptID: id, key: key, request: request) else {
                return nil
            }
            return self.makeTask(id: download, key: key, request: request, in: &scheduler)
        }
        started?.resume()
        return RequestReceipt(receiptID: id, request: request)
    }

    /// Stops `receipt`'s caller waiting: its failure handler is called with
    /// ``ImageDownloaderError/cancelled(_:)``, and the download is cancelled when no other caller
    /// waits for it. Does nothing when the wait has ended already (a second cancel included).
    public func cancelTask(for receipt: RequestReceipt) {
        let (handler, orphaned) = self.scheduler.withLockedValue { $0.cancel(receiptID: receipt.receiptID, key: receipt.key) }
        orphaned?.cancel()
        guard let handler else { return }
        self.deliver(to: handler) { $0.failure?(receipt.request, nil, ImageDownloaderError.cancelled(receipt.request.url)) }
    }

    /// Creates the suspended task for download `id`, attached to it in `scheduler`. The task's
    /// completion holds the downloader, so a released downloader lives until its downloads end.
    private func makeTask(id: Int, key: String, request: Request, in scheduler: inout DownloadScheduler<ResponseHandler, DataTask>) -> DataTask {
        let task = self.sessionManager.dataTask(with: request, serializer: self.imageSerializer) { completion in
            self.finish(id: id, key: key, with: completion)
        }
        _ = scheduler.attach(task, to: id, key: key)
        return task
    }

    /// Ends download `id`: its handlers get the image or the error (unless it was cancelled),
    /// the image is offered to the cache, and the downloads that may now run are started.
    private func finish(id: Int, key: String, with completion: TaskCompletion) {
        let (download, next) = self.scheduler.withLockedValue { scheduler in
            let download = scheduler.finish(id: id, key: key)
            let next = scheduler.nextToStart().map { self.makeTask(id: $0.id, key: $0.key, request: $0.request, in: &scheduler) }
            return (download, next)
        }
        if let download {
            self.report(completion, to: download)
        }
        for task in next {
            task.resume()
        }
    }

    private func report(_ completion: TaskCompletion, to download: DownloadScheduler<ResponseHandler, DataTask>.Download) {
        let response = completion.response
        guard completion.error == nil, let image = completion.serializedObject as? Image else {
            let error = completion.error ?? LupineError.responseSerializationFailed(.inputDataNilOrZeroLength)
            for (_, handler) in download.handlers {
                self.deliver(to: handler) { $0.failure?($0.request, response, error) }
            }
            return
        }
        if let cache = self.imageCache, cache.shouldCacheImage(image, for: download.request, withAdditionalIdentifier: nil) {
            cache.add(image, for: download.request, withAdditionalIdentifier: nil)
        }
        for (_, handler) in download.handlers {
            self.deliver(to: handler) { $0.success?($0.request, response, image) }
        }
    }

    /// Runs `call` with `handler` on the handler's queue.
    private func deliver(to handler: ResponseHandler, _ call: @escaping @Sendable (ResponseHandler) -> Void) {
        let queue = handler.queue ?? self.sessionManager.completionQueue ?? self.ownQueue
        queue.async { call(handler) }
    }

    /// Whether `url` can be downloaded: `http` or `https`, with a host.
    static func isDownloadable(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return !(url.host ?? "").isEmpty
    }

    /// Whether `policy` lets an image come from the image cache: not when it asks to reload.
    static func mayAnswerFromCache(_ policy: Request.CachePolicy) -> Bool {
        switch policy {
        case .useProtocolCachePolicy, .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            return true
        case .reloadIgnoringLocalCacheData:
            return false
        }
    }
}
