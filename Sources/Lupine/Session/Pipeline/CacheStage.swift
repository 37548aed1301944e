import Foundation
import NIOCore

/// The cache as one stage of the loop, with two calls: ``before(_:sending:task:)`` answers an
/// attempt from the cache or says how to send it, and ``after(_:head:to:plan:outcome:task:)``
/// says what to deliver once the response's head has come (a stored response revalidated by a
/// `304` or standing in for a `5xx`, or the response itself, its body teed into the cache as it
/// is read). A transport failure has ``instead(of:plan:task:)``.
///
/// It follows the rules of the session's cache: an ``HTTPCache``'s RFC 9111 decisions
/// (validation, `stale-while-revalidate`, `stale-if-error`, invalidation by unsafe methods,
/// `only-if-cached`), or a plain ``ResponseCache``'s fresh-or-stale lookups, each under the
/// request's ``Request/CachePolicy``. The ``CachedResponseHandler`` decides what is stored. A
/// new rule belongs here (or in the ``HTTPCache``'s decision it asks), never in the loop.
struct CacheStage {
    private enum Store {
        case http(HTTPCache)
        /// Used only by sinks that keep whole bodies.
        case plain(any ResponseCache)
    }

    /// What an attempt does after ``before(_:sending:task:)``.
    enum Before {
        /// The cache answers; nothing is sent.
        case answer(StoredResponse)
        /// The request goes to the network; what the cache needs of it afterwards.
        case send(CachePlan)
    }

    /// What an attempt delivers after ``after(_:head:to:plan:outcome:task:)``.
    enum After {
        /// A stored response is delivered instead of the network's.
        case answer(StoredResponse)
        /// A `304` revalidated an entry whose body could no longer be read (and is now dropped):
        /// the attempt starts again.
        case startOver
        /// The network's response is delivered, its body teed into the cache (when it may be
        /// stored), with what the cache did.
        case deliver(CacheTee?, status: CacheStatus?)
    }

    private let store: Store
    private let access: CacheAccess
    private let executor: RequestExecutor

    /// The size of the chunks a stored body is handed on in.
    private static let storedChunkSize = 64 * 1024

    /// The final statuses a `stale-if-error` entry stands in for (RFC 5861 §4).
    private static let staleIfErrorStatuses: Set<Int> = [500, 502, 503, 504]

    /// The stage of `executor`'s tasks whose sink has `access`; `nil` when the session has no
    /// cache, or none that sink can use.
    init?(access: CacheAccess, executor: RequestExecutor) {
        switch (access, executor.features.httpCache, executor.features.urlCache) {
        case (.none, _, _), (_, nil, nil):
            return nil
        case (_, let cache?, _):
            self.store = .http(cache)
        case (.wholeBodies, nil, let cache?):
            self.store = .plain(cache)
        case (.streamed, nil, _?):
            return nil
        }
        self.access = access
        self.executor = executor
    }

    // MARK: Before sending

    /// What the cache can do for `prepared` (the attempt's request before adaptation) under its
    /// ``Request/CachePolicy``; the conditions of a validation are added to `request`.
    ///
    /// - Throws: ``LupineError/resourceUnavailable(_:)`` for a miss under
    ///   ``Request/CachePolicy/returnCacheDataDontLoad``.
    nonisolated(nonsending) func before(_ prepared: Request, sending request: inout Request, task: SessionTask) async throws(LupineError) -> Before {
        switch self.store {
        case .plain(let cache):
            if let found = try await self.lookUp(prepared, in: cache, task: task) {
                return .answer(StoredResponse(head: found.head, source: .bytes(found.data), status: nil, reported: found.data))
            }
            return .send(CachePlan(keyed: prepared))
        case .http(let cache):
            // With the `Cookie` field the exchange adds from the jar, so a response that varies on
            // `Cookie` is stored and found under the cookies really sent.
            let keyed = self.executor.features.cookieStorage.map { prepared.addingCookies(from: $0) } ?? prepared
            let plan = CachePlan(keyed: keyed)
            switch try Self.step(of: cache, for: keyed) {
            case .fresh(let entry):
                return self.stored(entry, as: .hit, task: task).map(Before.answer) ?? .send(plan)
            case .staleUsable(let entry):
                return self.stored(entry, as: .stale, task: task).map(Before.answer) ?? .send(plan)
            case .staleWhileRevalidate(let entry, let conditions):
                guard let stale = self.stored(entry, as: .stale, task: task) else { return .send(plan) }
                BackgroundRevalidation(of: entry, conditions: conditions, keyed: keyed, in: cache, by: self.executor).start(for: task)
                return .answer(stale)
            case .unsatisfiable:
                // `only-if-cached` and nothing stored may answer: a `504`, nothing sent (RFC 9111 §5.2.1.7).
                let head = ResponseHead(status: .gatewayTimeout, headers: ["Content-Length": "0"], url: request.url)
                return .answer(StoredResponse(head: head, source: .bytes([]), status: nil, reported: nil))
            case .validate(let entry, let conditions, let staleIfError):
                for (name, value) in conditions {
                    request.headers.replaceOrAdd(name: name, value: value)
                }
                return .send(CachePlan(keyed: keyed, validating: conditions.isEmpty ? nil : entry, fallback: staleIfError ? entry : nil))
            case .miss:
                return .send(plan)
            }
        }
    }

    /// The ``HTTPCache``'s decision for `request` under its ``Request/CachePolicy``.
    private static func step(of cache: HTTPCache, for request: Request) throws(LupineError) -> CacheDecision {
        switch request.cachePolicy {
        case .reloadIgnoringLocalCacheData:
            return .miss
        case .returnCacheDataElseLoad:
            return cache.anyStoredEntry(for: request).map { .fresh($0) } ?? .miss
        case .returnCacheDataDontLoad:
            guard let entry = cache.anyStoredEntry(for: request) else { throw .resourceUnavailable(request.url) }
            return .fresh(entry)
        case .useProtocolCachePolicy:
            return cache.decision(for: request, now: Date())
        }
    }

    /// The stored response that answers `request` in a plain cache under its cache policy, or
    /// `nil` to go to the network; see ``ResponseCache`` for what each policy takes.
    private nonisolated(nonsending) func lookUp(_ request: Request, in cache: any ResponseCache, task: SessionTask) async throws(LupineError) -> CachedResponse? {
        guard request.cachePolicy != .reloadIgnoringLocalCacheData else { return nil }
        // Asked in the task itself (a cache answers at once): no hop to another Swift task on
        // every request. A cancel during the lookup stops the task right after it.
        let lookup = await cache.lookup(request)
        if task.isCancelling { throw .cancelled }
        switch (request.cachePolicy, lookup) {
        case (_, .fresh(let response)),
            (.returnCacheDataElseLoad, .stale(let response)),
            (.returnCacheDataDontLoad, .stale(let response)):
            return response
        case (.returnCacheDataDontLoad, .miss):
            throw .resourceUnavailable(request.url)
        default:
            return nil
        }
    }

    // MARK: After the head

    /// What to deliver now that `response`'s `head` has come for `request`, sent under `plan`;
    /// `outcome` holds its last hop and the redirects that led there.
    nonisolated(nonsending) func after(
        _ response: TransportResponse,
        head: ResponseHead,
        to request: Request,
        plan: CachePlan,
        outcome: ExecutionOutcome,
        task: SessionTask
    ) async throws -> After {
        let responseTime = Date()
        switch self.store {
        case .plain(let cache):
            let tee = CacheTee(collectingFor: head, handler: self.executor.features.cachedResponseHandler, task: task) { kept in
                await cache.store(kept, for: plan.keyed)
            }
            return .deliver(tee, status: nil)
        case .http(let cache):
            if let fallback = plan.fallback, Self.staleIfErrorStatuses.contains(head.statusCode),
                let stale = self.stored(fallback, as: .stale, task: task)
            {
                // The failure's body is not read: a server that fails may never end it. Dropping
                // it closes its connection, unless it had all arrived.
                return .answer(stale)
            }
            if let validating = plan.validating, head.statusCode == 304 {
                await RequestExecutor.drain(response.body)
                try task.checkCancellation()
                let refreshed = cache.refresh(validating, with: head, requestTime: plan.requestTime, responseTime: responseTime)
                return self.stored(refreshed, as: .revalidated, task: task).map(After.answer) ?? .startOver
            }
            cache.invalidate(after: request, response: head)
            let redirected = !outcome.redirectChain.isEmpty
            guard let storedAs = Self.storageRequest(for: plan.keyed, sent: outcome.request, redirected: redirected) else {
                return .deliver(nil, status: .miss)
            }
            let times = (request: plan.requestTime, response: responseTime)
            if self.access == .wholeBodies, let handler = self.executor.features.cachedResponseHandler {
                // Only a response the cache may store is kept for the handler to see.
                guard CacheStorability.record(for: storedAs, response: head, requestTime: times.request, responseTime: times.response) != nil else {
                    return .deliver(nil, status: .miss)
                }
                let tee = CacheTee(collectingFor: head, handler: handler, task: task) { kept in
                    guard let writer = cache.writer(for: storedAs, response: kept.head, requestTime: times.request, responseTime: times.response) else { return }
                    writer.append(bytes: kept.data)
                    writer.commit()
                }
                return .deliver(tee, status: .miss)
            }
            // Streamed, or with nothing to ask: the handler, if any, sees the head only.
            guard let kept = await Self.verdict(of: self.executor.features.cachedResponseHandler, on: CachedResponse(head: head, data: []), task: task),
                let writer = cache.writer(for: storedAs, response: kept.head, requestTime: times.request, responseTime: times.response)
            else { return .deliver(nil, status: .miss) }
            return .deliver(CacheTee(writingTo: writer), status: .miss)
        }
    }

    /// The stored response delivered in place of a transport `failure` the retriers let stand,
    /// when the plan kept one for `stale-if-error`.
    func instead(of failure: LupineError, plan: CachePlan, task: SessionTask) -> StoredResponse? {
        guard let fallback = plan.fallback, case .transport = failure, !task.isCancelling else { return nil }
        return self.stored(fallback, as: .stale, task: task)
    }

    /// The request a response is stored under: `keyed`, the one the cache was consulted with,
    /// carrying the `Authorization` the final hop sent (from the URL's user information, an
    /// answered challenge or an adapter), so the rule for authorized requests sees it. `nil` after
    /// a redirect: the response answers another URL than the one it would be found under, and the
    /// redirect itself may not be storable.
    static func storageRequest(for keyed: Request, sent: Request, redirected: Bool) -> Request? {
        guard !redirected else { return nil }
        guard !keyed.headers.contains(name: "Authorization"), let authorization = sent.headers.first(name: "Authorization") else {
            return keyed
        }
        var request = keyed
        request.headers.replaceOrAdd(name: "Authorization", value: authorization)
        return request
    }

    /// What `handler` keeps of `response`: all of it without one; `nil` for nothing, and for a
    /// task cancelled meanwhile.
    static nonisolated(nonsending) func verdict(of handler: (any CachedResponseHandler)?, on response: CachedResponse, task: SessionTask) async -> CachedResponse? {
        var kept: CachedResponse? = response
        if let handler {
            kept = await handler.task(task, willCache: response)
        }
        return task.isCancelling ? nil : kept
    }

    /// `entry` as it is delivered for `task` (a `HEAD` gets its head and no body), or `nil` when
    /// its body can no longer be read (a damaged disk entry, which the cache then drops): the
    /// request goes to the network instead. A sink that keeps whole bodies gets the body read
    /// whole; a streaming one gets it in chunks, checked first.
    private func stored(_ entry: CacheEntry, as status: CacheStatus, task: SessionTask) -> StoredResponse? {
        let entry = task.originalRequest.method == .HEAD ? entry.headOnly : entry
        switch self.access {
        case .wholeBodies, .none:
            guard let data = try? entry.readBody() else { return nil }
            return StoredResponse(head: entry.head, source: .bytes(data), status: status, reported: data)
        case .streamed:
            guard (try? entry.verify()) != nil else { return nil }
            return StoredResponse(head: entry.head, source: .stored(entry.bodyChunks(chunkSize: Self.storedChunkSize, verified: true)), status: status, reported: [])
        }
    }
}

/// What the cache needs of an attempt it did not answer.
struct CachePlan {
    /// The request as the cache was consulted with (the jar's cookies added).
    let keyed: Request
    /// The entry a `304` revalidates.
    var validating: CacheEntry?
    /// The entry `stale-if-error` delivers if the request fails.
    var fallback: CacheEntry?
    /// When the request went (at the latest), for the stored response's age (RFC 9111 §4.2.3).
    let requestTime = Date()
}

/// A response a cache delivers in place of the network's.
struct StoredResponse {
    let head: ResponseHead
    let source: ResponseStream.Source
    /// What it was, for ``TaskCompletion/cacheStatus``; `nil` from a plain ``ResponseCache`` and
    /// for the `504` of `only-if-cached`.
    let status: CacheStatus?
    /// The body the event monitors are told of with the head
    /// (``EventMonitor/task(_:didReceiveCachedResponse:)``; a streamed one's is not kept: empty);
    /// `nil` to tell them nothing.
    let reported: [UInt8]?
}
