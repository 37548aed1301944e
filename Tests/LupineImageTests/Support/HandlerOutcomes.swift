import NIOConcurrencyHelpers
import Foundation
import Lupine
import LupineImage
import LupineTestSupport

/// What an image downloader's handlers reported, in the order they ran, from any thread.
final class HandlerOutcomes: Sendable {
    /// One handler call.
    enum Outcome: Sendable {
        case success(name: String, response: ResponseHead?, image: Image)
        case failure(name: String, response: ResponseHead?, error: any Error)

        /// The name the handler was made with.
        var name: String {
            switch self {
            case .success(let name, _, _), .failure(let name, _, _): name
            }
        }

        /// The image, when it succeeded.
        var image: Image? {
            if case .success(_, _, let image) = self { return image }
            return nil
        }

        /// The error, when it failed.
        var error: (any Error)? {
            if case .failure(_, _, let error) = self { return error }
            return nil
        }

        /// The response it was given, if any.
        var response: ResponseHead? {
            switch self {
            case .success(_, let response, _), .failure(_, let response, _): response
            }
        }
    }

    private let outcomes = NIOLockedValueBox<[Outcome]>([])

    /// Every call so far.
    var all: [Outcome] { self.outcomes.withLockedValue { $0 } }

    /// The calls made for `name`.
    func of(_ name: String) -> [Outcome] { self.all.filter { $0.name == name } }

    /// A success handler recording under `name`.
    func success(_ name: String) -> ImageDownloader.SuccessHandler {
        { _, response, image in self.outcomes.withLockedValue { $0.append(.success(name: name, response: response, image: image)) } }
    }

    /// A failure handler recording under `name`.
    func failure(_ name: String) -> ImageDownloader.FailureHandler {
        { _, response, error in self.outcomes.withLockedValue { $0.append(.failure(name: name, response: response, error: error)) } }
    }

    /// Returns once `count` calls have been recorded.
    func waitFor(_ count: Int) async throws {
        try await waitUntil("\(count) handler calls") { self.outcomes.withLockedValue { $0.count } >= count }
    }
}

extension ImageDownloader {
    /// Starts a download whose handlers record into `outcomes` under `name`.
    @discardableResult
    func download(_ request: Request, as name: String, into outcomes: HandlerOutcomes, queue: DispatchQueue? = nil) -> RequestReceipt? {
        self.downloadImage(for: request, completionQueue: queue, success: outcomes.success(name), failure: outcomes.failure(name))
    }
}
