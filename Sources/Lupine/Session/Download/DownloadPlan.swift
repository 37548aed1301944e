import Foundation
import NIOConcurrencyHelpers

/// What a download task was made with: where its file starts and where it goes.
struct DownloadPlan: Sendable {
    /// The partial file to continue, or `nil` for a new file in ``directory``.
    let resumeData: ResumeData?
    /// Where a new temporary file is made.
    let directory: URL
    /// Where the finished file moves.
    var destination: DownloadDestination?
    /// The handler of a ``DownloadTask/cancel(byProducingResumeData:)`` call, shared by the task
    /// and its sink.
    let resumeDataRequest = ResumeDataRequest()
}

/// A pending request for resume data, handed over once.
///
/// `Sendable` through its lock box.
final class ResumeDataRequest: Sendable {
    private let handler = NIOLockedValueBox<(@Sendable ([UInt8]?) -> Void)?>(nil)

    /// Records `completionHandler`; `false` when one was recorded already.
    func ask(_ completionHandler: @escaping @Sendable ([UInt8]?) -> Void) -> Bool {
        self.handler.withLockedValue { handler in
            guard handler == nil else { return false }
            handler = completionHandler
            return true
        }
    }

    /// Whether a cancel asked for resume data.
    var isAsked: Bool { self.handler.withLockedValue { $0 != nil } }

    /// Hands `resumeData` to the pending handler, once.
    func deliver(_ resumeData: [UInt8]?) {
        let handler = self.handler.withLockedValue { handler in
            defer { handler = nil }
            return handler
        }
        handler?(resumeData)
    }
}
