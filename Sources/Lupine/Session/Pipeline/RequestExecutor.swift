import Foundation
import Logging
import NIOCore

/// What running a task produced, before response serialization.
struct ExecutionOutcome: Sendable {
    var request: Request
    var head: ResponseHead?
    var data: [UInt8] = []
    /// The metrics of the request that brought the final response.
    var metrics: TransportMetrics?
    /// The metrics of every earlier request of the task: redirect hops, answered challenges,
    /// retried attempts, in the order they were sent.
    var earlierMetrics: [TransportMetrics] = []
    var redirectChain: [URL] = []
    /// How many times the task's request was sent again by a retrier.
    var retryCount = 0
    /// What the session's ``HTTPCache`` did; `nil` without one.
    var cacheStatus: CacheStatus?
    /// Where a download's file ended up.
    var fileURL: URL?
    var error: LupineError?
}

/// The one execution loop every task runs through, whatever its kind; only its
/// ``ResponseSink`` (memory, handlers, a file) differs. Each attempt goes through fixed points,
/// in this order:
///
/// 1. the sink prepares the request (a resumed download adds its range);
/// 2. the cache point: a ``ResponseCache`` may answer, and then nothing is sent (an
///    ``HTTPCache`` may also start a background revalidation, or keep a stale response to
///    deliver if the request fails: see ``cachePoint(_:keyed:request:into:task:outcome:)``);
/// 3. adaptation: the request's ``RequestInterceptor``, then the session's; then a session
///    tracer's context goes into the header fields (see ``RequestObservation``);
/// 4. the exchange: the request is sent; redirects (``RedirectHandler``) and Basic challenges
///    are answered within the attempt;
/// 5. the retry point: a transport error, or a final status of 400 or above, is put to the
///    retriers, which may send the attempt again (after a delay);
/// 6. the response hook, then the sink takes the body; a fully read body is offered to the
///    ``CachedResponseHandler`` and the cache.
///
/// A step that is not configured costs nothing: no interceptor means no adaptation and no retry
/// point, no cache means no lookup.
///
/// A class, made once per task: every step of the loop is a method, and a struct of this size
/// would be copied, with a retain of each field, into each of their frames.
///
/// The loop's async methods, and those of the sinks and the task they call, are
/// `nonisolated(nonsending)`: they go on where their caller runs. A task's body starts from a
/// public, plain `async` entry point, so all of it runs off any actor, as before; what the
/// annotation saves is a check for a switch of executor at every call of the loop (measured:
/// half of the `swift_task_switch` samples of a session request under load).
final class RequestExecutor: Sendable {
    let transport: any Transport
    let hooks: SessionHooks
    let features: TaskFeatures
    let maximumRedirects: Int
    let credential: Credential?
    /// The session's trust hook; `nil` for the transport's own.
    let serverTrustEvaluator: ServerTrustEvaluator?
    /// Answers a server's request for a client certificate; `nil` for the transport's own.
    let clientIdentityProvider: ClientIdentityProvider?
    let logger: Logger

    init(
        transport: any Transport,
        hooks: SessionHooks,
        features: TaskFeatures,
        maximumRedirects: Int,
        credential: Credential?,
        serverTrustEvaluator: ServerTrustEvaluator?,
        clientIdentityProvider: ClientIdentityProvider?,
        logger: Logger
    ) {
        self.transport = transport
        self.hooks = hooks
        self.features = features
        self.maximumRedirects = maximumRedirects
        self.credential = credential
        self.serverTrustEvaluator = serverTrustEvaluator
        self.clientIdentityProvider = clientIdentityProvider
        self.logger = logger
    }

    /// Runs `task` to its outcome, counted and traced when the session has metrics or a tracer.
    nonisolated(nonsending) func run(_ task: SessionTask) async -> ExecutionOutcome {
        if let observation = self.features.observation {
            return await observation.observe(task, transport: self.transport) { await self.deliver(task) }
        }
        return await self.deliver(task)
    }

    /// Runs `task` to its outcome, its body going where the task's kind sends it.
    private nonisolated(nonsending) func deliver(_ task: SessionTask) async -> ExecutionOutcome {
        switch task.bodyDestination {
        case .memory:
            var sink = MemorySink()
            return await self.run(task, into: &sink)
        case .handlers(let receiveHead, let receiveChunk):
            var sink = HandlerSink(receiveHead: receiveHead, receiveChunk: receiveChunk)
            return await self.run(task, into: &sink)
        case .file(let plan):
            var sink = FileSink(plan: plan, original: task.originalRequest)
            return await self.run(task, into: &sink)
        }
    }

    private nonisolated(nonsending) func run<Sink: ResponseSink>(_ task: SessionTask, into sink: inout Sink) async -> ExecutionOutcome {
        var outcome = ExecutionOutcome(request: task.originalRequest)
        var failure: LupineError?
        do {
            try await sink.prepare()
            try await self.attempts(task, into: &sink, outcome: &outcome)
        } catch {
            let lupineError = LupineError(translating: error, from: .transport)
            failure = lupineError
            self.logger.debug(
                "Request failed",
                metadata: ["task": "\(task.taskIdentifier)", "error": "\(lupineError.description)"]
            )
        }
        await sink.finish(&outcome, error: failure)
        return outcome
    }

    /// Sends attempts until one brings a response the sink takes, or one fails for good.
    private nonisolated(nonsending) func attempts<Sink: ResponseSink>(
        _ task: SessionTask,
        into sink: inout Sink,
        outcome: inout ExecutionOutcome
    ) async throws {
        // Read only for a retrier's context: a clock read is not free.
        let started = self.features.interceptor == nil ? nil : ContinuousClock.now
        while true {
            try task.checkCancellation()
            let prepared = sink.request(for: task.originalRequest)
            var request = prepared
            outcome.request = request
            // What the HTTP cache left for this attempt: the entry a 304 would revalidate, the
            // one a failure would fall back to.
            var plan = CachePlan()
            let httpCache = sink.usesCache ? self.features.httpCache : nil
            let keyed = httpCache == nil ? prepared : self.cacheView(of: prepared)
            if let httpCache {
                guard let left = try await self.cachePoint(httpCache, keyed: keyed, request: &request, into: &sink, task: task, outcome: &outcome) else { return }
                plan = left
            } else if sink.usesCache, !sink.streamsToCache, let cache = self.features.urlCache,
                let cached = try await self.cachedResponse(for: prepared, in: cache, task: task)
            {
                outcome.head = cached.head
                task.didReceive(cached.head)
                try await sink.receive(cached: cached, task: task)
                return
            }
            if let interceptor = self.features.interceptor {
                request = try await self.adapt(request, with: interceptor, task: task, retryCount: outcome.retryCount)
            }
            if let observation = self.features.observation {
                request = observation.propagatingContext(into: request)
            }
            self.features.tell { $0.task(task, didStartAttempt: outcome.retryCount, with: request) }
            var times = httpCache.map { _ in CacheExchangeTimes(requestTime: Date(), responseTime: Date()) }
            let response: TransportResponse
            let head: ResponseHead
            do {
                (response, head) = try await self.exchange(task, startingWith: request, outcome: &outcome)
                times?.responseTime = Date()
            } catch {
                let failure = LupineError(translating: error, from: .transport)
                guard let delay = try await self.retryDelay(after: failure, sending: request, response: nil, of: task, outcome: outcome, started: started) else {
                    if try await self.serve(plan.fallback, insteadOf: failure, into: &sink, task: task, outcome: &outcome) { return }
                    throw failure
                }
                try await self.prepareRetry(after: delay, of: task, outcome: &outcome, discarding: nil)
                continue
            }
            if head.statusCode >= 400,
                let delay = try await self.retryDelay(after: Self.statusFailure(head), sending: request, response: head, of: task, outcome: outcome, started: started)
            {
                try await self.prepareRetry(after: delay, of: task, outcome: &outcome, discarding: response)
                continue
            }
            if try await self.serve(plan.fallback, insteadOf: response, head: head, into: &sink, task: task, outcome: &outcome) { return }
            let storedAs = httpCache == nil ? nil : Self.storageRequest(for: keyed, sent: outcome.request, redirected: !outcome.redirectChain.isEmpty)
            if let httpCache, let times {
                if let validating = plan.validating, head.statusCode == 304 {
                    await Self.drain(response.body)
                    try task.checkCancellation()
                    let refreshed = httpCache.refresh(validating, with: head, requestTime: times.requestTime, responseTime: times.responseTime)
                    outcome.metrics = response.metrics
                    if try await self.serve(refreshed, as: .revalidated, into: &sink, task: task, outcome: &outcome) { return }
                    continue
                }
                httpCache.invalidate(after: request, response: head)
                outcome.cacheStatus = .miss
                if sink.streamsToCache, let storedAs {
                    sink.cacheWriter = await self.streamWriter(head: head, for: storedAs, in: httpCache, exchange: times, task: task)
                }
            }
            if self.hooks.didReceiveResponse?(task, head) == .cancel {
                sink.cacheWriter?.abandon()
                throw LupineError.cancelled
            }
            let verdict: SinkVerdict
            do {
                verdict = try await sink.receive(response.body, head: head, task: task, executor: self)
            } catch {
                sink.cacheWriter?.abandon()
                throw error
            }
            guard case .done = verdict else {
                outcome.earlierMetrics.append(response.metrics)
                outcome.metrics = nil
                continue
            }
            outcome.metrics = response.metrics
            if let writer = sink.cacheWriter {
                writer.commit()
            } else if let httpCache, let times, let storedAs, let body = sink.cacheableBody {
                await self.store(body, head: head, for: storedAs, in: httpCache, exchange: times, task: task)
            } else if httpCache == nil, let cache = self.features.urlCache, let body = sink.cacheableBody {
                await self.offer(CachedResponse(head: head, data: body), for: prepared, to: cache, task: task)
            }
            return
        }
    }

    /// Runs the interceptor's adaptation of `request`, reporting it to the monitors.
    private nonisolated(nonsending) func adapt(
        _ request: Request,
        with interceptor: any RequestInterceptor,
        task: SessionTask,
        retryCount: Int
    ) async throws(LupineError) -> Request {
        do {
            let context = AdaptContext(task: task, retryCount: retryCount)
            // In the task itself: a hop to another Swift task on every request would cost more
            // than most adapters. One that waits (for a token) listens for the task's cancel
            // itself, as AuthenticationInterceptor does.
            let adapted = try await interceptor.adapt(request, for: context)
            self.features.tell { $0.task(task, didAdapt: request, to: adapted) }
            return adapted
        } catch {
            if task.isCancelling { throw .cancelled }
            throw LupineError(translating: error, from: .adapter)
        }
    }

    /// What a retrier is told about a final response whose status is 400 or above.
    private static func statusFailure(_ head: ResponseHead) -> LupineError {
        .responseValidationFailed(.unacceptableStatusCode(code: head.statusCode, head: head, body: [], underlying: nil))
    }

    nonisolated(nonsending) func readBody(_ body: ResponseBody, expectedLength: Int?, of task: SessionTask) async throws -> [UInt8] {
        var data: [UInt8] = []
        // One allocation for a body of announced size (capped: the header is the server's word).
        data.reserveCapacity(min(max(expectedLength ?? 0, 0), 16 * 1024 * 1024))
        try await self.forEachChunk(of: body, for: task) { chunk in
            data.append(contentsOf: chunk.readableBytesView)
        }
        return data
    }

    /// Hands each body chunk to `handle`, waiting while the task is suspended (so the transport
    /// stops reading), stopping when it is cancelled, and reporting progress and data.
    nonisolated(nonsending) func forEachChunk(of body: ResponseBody, for task: SessionTask, _ handle: (ByteBuffer) async throws -> Void) async throws {
        var chunks = body.makeAsyncIterator()
        while true {
            await task.gate.pass()
            try task.checkCancellation()
            guard let chunk = try await chunks.next() else { return }
            try await handle(chunk)
            task.delegate.didReceiveBody(bytes: chunk.readableBytes)
            self.hooks.didReceiveData?(task, chunk)
        }
    }

    /// The bytes of a body nobody keeps (a redirect's, a challenge's, a retried or revalidated
    /// response's) that are read so its connection can serve another request; a longer body is
    /// left unread and its connection closed.
    static let drainLimit = 64 * 1024

    /// Reads the rest of a body nobody keeps, up to ``drainLimit`` bytes: a server cannot hold
    /// the task with an endless one. The response's head has decided what comes next, so a body
    /// that fails (cut short, timed out, cancelled) only costs its connection: the caller checks
    /// for a cancel itself.
    static nonisolated(nonsending) func drain(_ body: ResponseBody) async {
        var read = 0
        do {
            for try await chunk in body {
                read += chunk.readableBytes
                guard read <= Self.drainLimit else { return }
            }
        } catch {
            return
        }
    }
}
