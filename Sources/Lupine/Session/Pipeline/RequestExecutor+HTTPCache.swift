import Foundation
import NIOCore

/// What the session's ``HTTPCache`` makes of an attempt before anything is sent.
enum CacheStep {
    /// A stored response answers, as `status` says; nothing is sent.
    case answer(CacheEntry, CacheStatus)
    /// A stale stored response answers at once (`stale-while-revalidate`), and one background
    /// request, with these conditions, revalidates it.
    case answerAndRevalidate(CacheEntry, conditions: HTTPHeaders)
    /// The request says `only-if-cached` and nothing stored may answer it: a `504` is delivered
    /// and nothing is sent (RFC 9111 §5.2.1.7).
    case gatewayTimeout
    /// The request goes with these conditions (none when the entry has no validator); a `304`
    /// revalidates the entry, and with `staleIfError` a failure delivers it instead.
    case validate(CacheEntry, conditions: HTTPHeaders, staleIfError: Bool)
    /// The request goes to the network.
    case send
}

/// The RFC 9111 path of the cache point, taken when the session's cache is an ``HTTPCache``:
/// freshness and validation decided by the cache, the `304` that revalidates, invalidation by
/// unsafe methods, and bodies stored as they arrive.
extension RequestExecutor {
    /// What the cache can do for `request` under its ``Request/CachePolicy``.
    ///
    /// - Throws: ``LupineError/resourceUnavailable(_:)`` for a miss under
    ///   ``Request/CachePolicy/returnCacheDataDontLoad``.
    func consult(_ cache: HTTPCache, for request: Request) throws(LupineError) -> CacheStep {
        switch request.cachePolicy {
        case .reloadIgnoringLocalCacheData:
            return .send
        case .returnCacheDataElseLoad:
            return cache.anyStoredEntry(for: request).map { .answer($0, .hit) } ?? .send
        case .returnCacheDataDontLoad:
            guard let entry = cache.anyStoredEntry(for: request) else { throw .resourceUnavailable(request.url) }
            return .answer(entry, .hit)
        case .useProtocolCachePolicy:
            switch cache.decision(for: request, now: Date()) {
            case .fresh(let entry): return .answer(entry, .hit)
            case .staleUsable(let entry): return .answer(entry, .stale)
            case .staleWhileRevalidate(let entry, let conditions): return .answerAndRevalidate(entry, conditions: conditions)
            case .validate(let entry, let conditions, let staleIfError): return .validate(entry, conditions: conditions, staleIfError: staleIfError)
            case .miss: return .send
            case .unsatisfiable: return .gatewayTimeout
            }
        }
    }

    /// Delivers a stored response to the sink and tells the monitors; `false` when the stored
    /// body could not be read (the cache has dropped it) and the request should be sent instead.
    /// A `HEAD` gets the stored head and no body.
    nonisolated(nonsending) func serve<Sink: ResponseSink>(
        _ stored: CacheEntry,
        as status: CacheStatus,
        into sink: inout Sink,
        task: SessionTask,
        outcome: inout ExecutionOutcome
    ) async throws -> Bool {
        let entry = task.originalRequest.method == .HEAD ? stored.headOnly : stored
        guard try await sink.receive(entry: entry, task: task) else { return false }
        outcome.head = entry.head
        outcome.cacheStatus = status
        self.features.tell { $0.task(task, didReceiveCachedResponse: CachedResponse(head: entry.head, data: sink.cacheableBody ?? [])) }
        return true
    }

    /// Delivers the `504 Gateway Timeout` an unsatisfiable `only-if-cached` request gets.
    nonisolated(nonsending) func answerGatewayTimeout<Sink: ResponseSink>(for request: Request, into sink: inout Sink, task: SessionTask, outcome: inout ExecutionOutcome) async throws {
        let head = ResponseHead(status: .gatewayTimeout, headers: ["Content-Length": "0"], url: request.url)
        outcome.head = head
        task.didReceive(head)
        try await sink.receive(cached: CachedResponse(head: head, data: []), task: task)
    }

    /// `prepared` as the cache sees it: with the `Cookie` field the exchange adds from the jar,
    /// so a response that varies on `Cookie` is stored and found under the cookies really sent.
    func cacheView(of prepared: Request) -> Request {
        self.features.cookieStorage.map { prepared.addingCookies(from: $0) } ?? prepared
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

    /// Stores a body read whole once the task's ``CachedResponseHandler`` let it.
    nonisolated(nonsending) func store(_ body: [UInt8], head: ResponseHead, for request: Request, in cache: HTTPCache, exchange: CacheExchangeTimes, task: SessionTask) async {
        guard let kept = await self.handlerVerdict(on: CachedResponse(head: head, data: body), task: task),
            let writer = cache.writer(for: request, response: kept.head, requestTime: exchange.requestTime, responseTime: exchange.responseTime)
        else { return }
        writer.append(ByteBuffer(bytes: kept.data))
        writer.commit()
    }

    /// A writer for a body handed on as it arrives, when the handler lets the response be stored;
    /// the handler sees the head only (the body has not arrived).
    nonisolated(nonsending) func streamWriter(head: ResponseHead, for request: Request, in cache: HTTPCache, exchange: CacheExchangeTimes, task: SessionTask) async -> CacheEntryWriter? {
        guard let kept = await self.handlerVerdict(on: CachedResponse(head: head, data: []), task: task) else { return nil }
        return cache.writer(for: request, response: kept.head, requestTime: exchange.requestTime, responseTime: exchange.responseTime)
    }

    /// What the task's ``CachedResponseHandler`` keeps of `response`; `nil` for nothing, and for a
    /// task cancelled meanwhile.
    private nonisolated(nonsending) func handlerVerdict(on response: CachedResponse, task: SessionTask) async -> CachedResponse? {
        var kept: CachedResponse? = response
        if let handler = self.features.cachedResponseHandler {
            kept = await handler.task(task, willCache: response)
        }
        return task.isCancelling ? nil : kept
    }
}

/// When an exchange the cache may store was sent and answered, for its age calculation
/// (RFC 9111 §4.2.3).
struct CacheExchangeTimes {
    let requestTime: Date
    var responseTime: Date
}
