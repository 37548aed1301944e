/// Several adapters and retriers as one ``RequestInterceptor``.
///
/// Adapters run in order, each given the request the previous one returned; the first that throws
/// ends the chain. Retriers are asked in order until one says anything but
/// ``RetryDecision/doNotRetry``; that answer is the decision.
public struct Interceptor: RequestInterceptor {
    /// The adapters, in the order they run.
    public let adapters: [any RequestAdapter]
    /// The retriers, in the order they are asked.
    public let retriers: [any RequestRetrier]

    /// An interceptor of `adapters` and `retriers`.
    public init(adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = []) {
        self.adapters = adapters
        self.retriers = retriers
    }

    /// An interceptor that adapts with each of `interceptors` in order, then asks each in order.
    public init(interceptors: [any RequestInterceptor]) {
        self.adapters = interceptors
        self.retriers = interceptors
    }

    public func adapt(_ request: Request, for context: AdaptContext) async throws -> Request {
        var adapted = request
        for adapter in self.adapters {
            adapted = try await adapter.adapt(adapted, for: context)
        }
        return adapted
    }

    public func retry(_ context: RetryContext) async throws -> RetryDecision {
        for retrier in self.retriers {
            let decision = try await retrier.retry(context)
            if case .doNotRetry = decision { continue }
            return decision
        }
        return .doNotRetry
    }
}
