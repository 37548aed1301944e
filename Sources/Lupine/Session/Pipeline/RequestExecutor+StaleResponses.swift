import Foundation

/// What the cache point left for the rest of an attempt, when no stored response answered.
struct CachePlan {
    /// The entry a `304` revalidates.
    var validating: CacheEntry?
    /// The entry `stale-if-error` delivers if the request fails.
    var fallback: CacheEntry?
}

/// The cache point of the loop with an ``HTTPCache``, and the stored responses served past their
/// freshness: `stale-while-revalidate` (RFC 5861 §3) and `stale-if-error` (§4).
extension RequestExecutor {
    /// The final statuses a `stale-if-error` entry stands in for (RFC 5861 §4).
    static let staleIfErrorStatuses: Set<Int> = [500, 502, 503, 504]

    /// Consults `cache` for `keyed` and answers from it when it can: `nil` when a stored response
    /// (or the `504` of `only-if-cached`) was delivered, otherwise what the attempt needs, with
    /// the validation's conditions added to `request`.
    nonisolated(nonsending) func cachePoint<Sink: ResponseSink>(
        _ cache: HTTPCache,
        keyed: Request,
        request: inout Request,
        into sink: inout Sink,
        task: SessionTask,
        outcome: inout ExecutionOutcome
    ) async throws -> CachePlan? {
        switch try self.consult(cache, for: keyed) {
        case .answer(let entry, let status):
            return try await self.serve(entry, as: status, into: &sink, task: task, outcome: &outcome) ? nil : CachePlan()
        case .answerAndRevalidate(let entry, let conditions):
            guard try await self.serve(entry, as: .stale, into: &sink, task: task, outcome: &outcome) else { return CachePlan() }
            self.revalidateInBackground(entry, conditions: conditions, keyed: keyed, in: cache, for: task)
            return nil
        case .gatewayTimeout:
            try await self.answerGatewayTimeout(for: request, into: &sink, task: task, outcome: &outcome)
            return nil
        case .validate(let entry, let conditions, let staleIfError):
            for (name, value) in conditions {
                request.headers.replaceOrAdd(name: name, value: value)
            }
            return CachePlan(validating: conditions.isEmpty ? nil : entry, fallback: staleIfError ? entry : nil)
        case .send:
            return CachePlan()
        }
    }

    /// Delivers `fallback` in place of a transport error, once the retriers have let it stand;
    /// `false` (deliver the error) for any other failure, or when its body cannot be read.
    nonisolated(nonsending) func serve<Sink: ResponseSink>(
        _ fallback: CacheEntry?,
        insteadOf failure: LupineError,
        into sink: inout Sink,
        task: SessionTask,
        outcome: inout ExecutionOutcome
    ) async throws -> Bool {
        guard let fallback, case .transport = failure, !task.isCancelling else { return false }
        return try await self.serve(fallback, as: .stale, into: &sink, task: task, outcome: &outcome)
    }

    /// Delivers `fallback` in place of a final `500`, `502`, `503` or `504`, whose body is then
    /// drained (the first ``drainLimit`` bytes; a longer one closes its connection); `false` (deliver the response) for any other status, or when the stored body
    /// cannot be read.
    nonisolated(nonsending) func serve<Sink: ResponseSink>(
        _ fallback: CacheEntry?,
        insteadOf response: TransportResponse,
        head: ResponseHead,
        into sink: inout Sink,
        task: SessionTask,
        outcome: inout ExecutionOutcome
    ) async throws -> Bool {
        guard let fallback, Self.staleIfErrorStatuses.contains(head.statusCode),
            try await self.serve(fallback, as: .stale, into: &sink, task: task, outcome: &outcome)
        else { return false }
        // The stored response is delivered: the one that failed is drained.
        await Self.drain(response.body)
        return true
    }
}
