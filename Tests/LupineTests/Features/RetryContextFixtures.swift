import Foundation
import LupineTestServer
import NIOHTTP1

@testable import Lupine

/// Retry and adapt contexts built by hand, for testing retriers and adapters by value: the task is
/// a real one that is never resumed, so nothing is sent.
enum RetryContextFixtures {
    static let url = URL(string: "http://127.0.0.1:1/resource")!
    private static let session = SessionManager()

    /// A suspended task whose original request uses `method`.
    static func task(method: HTTPMethod = .GET) -> SessionTask {
        session.dataTask(with: Request(url: url, method: method)) { _ in }
    }

    /// A context for an attempt answered with `status` and `headers`.
    static func response(
        _ status: Int,
        headers: HTTPHeaders = [:],
        method: HTTPMethod = .GET,
        originalMethod: HTTPMethod? = nil,
        request: Request? = nil,
        retryCount: Int = 0,
        elapsed: Duration = .zero
    ) -> RetryContext {
        let head = ResponseHead(status: HTTPResponseStatus(statusCode: status), headers: headers, url: url)
        let error = LupineError.responseValidationFailed(.unacceptableStatusCode(code: status, head: head, body: [], underlying: nil))
        return RetryContext(
            task: task(method: originalMethod ?? method),
            request: request ?? Request(url: url, method: method),
            response: head,
            error: error,
            retryCount: retryCount,
            elapsed: elapsed
        )
    }

    /// A context for an attempt that failed with `error` before a response.
    static func failure(
        _ error: LupineError,
        method: HTTPMethod = .GET,
        retryCount: Int = 0,
        elapsed: Duration = .zero
    ) -> RetryContext {
        RetryContext(
            task: task(method: method),
            request: Request(url: url, method: method),
            response: nil,
            error: error,
            retryCount: retryCount,
            elapsed: elapsed
        )
    }

    /// The IMF-fixdate form of `date`.
    static func httpDate(_ date: Date) -> String {
        LupineTestServer.httpDate(date)
    }
}

/// A ``RetryDecision`` reduced to what tests compare.
enum DecisionOutcome: Equatable {
    case retry
    case retryAfter(Duration)
    case doNotRetry
    case failed(String)

    init(_ decision: RetryDecision) {
        switch decision {
        case .retry: self = .retry
        case .retryAfter(let delay): self = .retryAfter(delay)
        case .doNotRetry: self = .doNotRetry
        case .doNotRetryWithError(let error): self = .failed(String(describing: error))
        }
    }
}
