import Foundation
import Lupine
import NIOConcurrencyHelpers

/// Runs `request` as a data task of `manager` and returns its completion.
func completion(of request: Request, on manager: SessionManager, serializer: some ResponseSerializer = HTTPResponseSerializer()) async -> TaskCompletion {
    await withCheckedContinuation { continuation in
        manager.dataTask(with: request, serializer: serializer) { continuation.resume(returning: $0) }.resume()
    }
}

/// An adapter made of a closure.
struct ClosureAdapter: RequestInterceptor {
    let adapt: @Sendable (Request, AdaptContext) async throws -> Request

    func adapt(_ request: Request, for context: AdaptContext) async throws -> Request {
        try await self.adapt(request, context)
    }
}

/// A retrier made of a closure, counting how often it is asked.
final class ClosureRetrier: RequestInterceptor {
    let asked = NIOLockedValueBox(0)
    let decide: @Sendable (RetryContext) async throws -> RetryDecision

    init(_ decide: @escaping @Sendable (RetryContext) async throws -> RetryDecision) {
        self.decide = decide
    }

    func retry(_ context: RetryContext) async throws -> RetryDecision {
        self.asked.withLockedValue { $0 += 1 }
        return try await self.decide(context)
    }
}

/// Records the pipeline's events, one line each.
final class PipelineMonitor: EventMonitor {
    let events = Recorder<String>()

    func task(_ task: SessionTask, didReceiveCachedResponse response: CachedResponse) {
        self.events.append("cached \(response.head.statusCode)")
    }
    func task(_ task: SessionTask, didAdapt original: Request, to adapted: Request) {
        self.events.append("adapt")
    }
    func task(_ task: SessionTask, didStartAttempt retryCount: Int, with request: Request) {
        self.events.append("attempt \(retryCount)")
    }
    func task(_ task: SessionTask, willRedirectTo request: Request, for response: ResponseHead) {
        self.events.append("redirect \(response.statusCode) \(request.url.path)")
    }
    func task(_ task: SessionTask, didReceive challenge: AuthenticationChallenge, disposition: AuthenticationDisposition) {
        self.events.append("challenge \(challenge.scheme)")
    }
    func task(_ task: SessionTask, didDecide decision: RetryDecision, for context: RetryContext) {
        switch decision {
        case .retry: self.events.append("retry \(context.retryCount)")
        case .retryAfter: self.events.append("retry-after \(context.retryCount)")
        case .doNotRetry: self.events.append("no-retry \(context.retryCount)")
        case .doNotRetryWithError: self.events.append("fail \(context.retryCount)")
        }
    }
    func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion) {
        self.events.append("complete")
    }
}

/// An error of the test's own.
struct OwnError: Error, Equatable {
    let name: String
}
