import NIOConcurrencyHelpers
import Foundation
import Lupine

/// An image as the async ``ImageDownloader/downloadImage(for:)`` returns it.
public struct DownloadedImage: Sendable {
    /// The request asked for.
    public let request: Request
    /// The response, or `nil` when the image came from the downloader's image cache.
    public let response: ResponseHead?
    /// The image.
    public let image: Image
}

extension ImageDownloader {
    /// Downloads the image `request` names, or answers it from ``imageCache``, as
    /// ``downloadImage(for:receiptID:completionQueue:success:failure:)`` does.
    ///
    /// Cancelling the calling Swift task cancels this caller's receipt only: it throws
    /// ``ImageDownloaderError/cancelled(_:)``, and the download goes on for other callers.
    /// - Throws: ``ImageDownloaderError/cancelled(_:)``, or the `LupineError` the download failed with.
    public func downloadImage(for request: Request) async throws -> DownloadedImage {
        let wait = ReceiptCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let receipt = self.downloadImage(
                    for: request,
                    success: { request, response, image in
                        continuation.resume(returning: DownloadedImage(request: request, response: response, image: image))
                    },
                    failure: { _, _, error in continuation.resume(throwing: error) }
                )
                if let receipt, wait.started(receipt) {
                    self.cancelTask(for: receipt)
                }
            }
        } onCancel: {
            if let receipt = wait.cancelled() {
                self.cancelTask(for: receipt)
            }
        }
    }
}

/// The receipt of one awaited download and whether its Swift task was cancelled, so that a
/// cancellation arriving before the receipt exists still cancels it once it does.
private final class ReceiptCancellation: Sendable {
    private let state = NIOLockedValueBox<(receipt: RequestReceipt?, isCancelled: Bool)>((nil, false))

    /// Records `receipt`; whether the Swift task was cancelled already (the caller cancels it then).
    func started(_ receipt: RequestReceipt) -> Bool {
        self.state.withLockedValue { state in
            state.receipt = receipt
            return state.isCancelled
        }
    }

    /// Records the cancellation; the receipt to cancel, when there is one already.
    func cancelled() -> RequestReceipt? {
        self.state.withLockedValue { state in
            state.isCancelled = true
            return state.receipt
        }
    }
}
