// A request's life in the session layer, and who may touch what.
//
//   SessionManager.dataTask / download / upload / stream   (Session/)
//     makes a SessionTask; TaskFeatures resolves the request's and the session's extension
//     points once; BodyDestination picks the sink.
//   SessionTask.resume -> RequestExecutor.run              (this file)
//     RequestObservation (metrics, tracing) wraps the run when the session has either.
//   RequestExecutor.attempts: one attempt per turn of the loop
//     sink.request(for:)              the sink's only say in the request (FileSink: Range)
//     CacheStage.before               CacheStage.swift: answer, or send with conditions;
//                                     BackgroundRevalidation.swift for stale-while-revalidate
//     adapt                           interceptors, then the tracer's headers
//     exchange                        RequestExecutor+Exchange.swift: cookies, header checks,
//                                     Transport.execute (LupineTransport), redirects, Basic
//                                     challenges; the body stays unread
//     retryDelay / prepareRetry       RequestExecutor+Retry.swift
//     CacheStage.after                304 and stale-if-error answers; a CacheTee for the body
//     hooks.didReceiveResponse        the last word before the body
//     sink.receive(ResponseStream)    ResponseStream.swift reads the body: suspension,
//                                     cancellation, progress, didReceiveData, the tee
//   sink.finish                       the body or file into ExecutionOutcome, the error set
//   SessionTask completes             serializers and completion handlers run on the outcome
//
// The loop owns the order; the cache stage owns every cache rule; sinks own where bytes go;
// the transport owns connections and never sees a session type.

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
/// 2. the cache stage's first call (``CacheStage/before(_:sending:task:)``): a stored response
///    may answer, and then nothing is sent, or the request goes with the cache's conditions;
/// 3. adaptation: the request's ``RequestInterceptor``, then the session's; then a session
///    tracer's context goes into the header fields (see ``RequestObservation``);
/// 4. the exchange: the request is sent; redirects (``RedirectHandler``) and Basic challenges
///    are answered within the attempt;
/// 5. the retry point: a transport error, or a final status of 400 or above, is put to the
///    retriers, which may send the attempt again (after a delay); a failure they let stand may
///    still be answered by the cache (`stale-if-error`);
/// 6. the cache stage's second call (``CacheStage/after(_:head:to:plan:outcome:task:)``): a
///    `304` or a `5xx` may be answered by the stored response; otherwise the body is teed into
///    the cache as it is read;
/// 7. the response hook, then the sink takes the head and body (a ``ResponseStream``).
///
/// A step that is not configured costs nothing: no interceptor means no adaptation and no retry
/// point, no cache means no stage.
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
        case .file(var plan):
            // A task without a destination of its own goes where the session's hook says.
            if plan.destination == nil, let hook = self.hooks.downloadTaskDidFinishDownloading {
                plan.destination = { file, head in (hook(task, file, head) ?? file, []) }
            }
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
        let cache = CacheStage(access: sink.cacheAccess, executor: self)
        // Read only for a retrier's context: a clock read is not free.
        let started = self.features.interceptor == nil ? nil : ContinuousClock.now
        while true {
            try task.checkCancellation()
            let prepared = sink.request(for: task.originalRequest)
            var request = prepared
            outcome.request = request
            var plan: CachePlan?
            switch try await cache?.before(prepared, sending: &request, task: task) {
            case .answer(let stored): return try await self.serve(stored, into: &sink, task: task, outcome: &outcome)
            case .send(let left): plan = left
            case nil: break
            }
            request = try await self.adapt(request, task: task, retryCount: outcome.retryCount)
            let response: TransportResponse
            let head: ResponseHead
            switch try await self.send(request, of: task, outcome: &outcome, started: started) {
            case .answered(let answer, let answerHead):
                (response, head) = (answer, answerHead)
            case .retrying:
                continue
            case .failed(let failure):
                guard let plan, let stale = cache?.instead(of: failure, plan: plan, task: task) else { throw failure }
                return try await self.serve(stale, into: &sink, task: task, outcome: &outcome)
            }
            var tee: CacheTee?
            if let cache, let plan {
                switch try await cache.after(response, head: head, to: request, plan: plan, outcome: outcome, task: task) {
                case .answer(let stored):
                    return try await self.serve(stored, into: &sink, task: task, outcome: &outcome)
                case .startOver:
                    continue
                case .deliver(let teed, let status):
                    (tee, outcome.cacheStatus) = (teed, status)
                }
            }
            if self.hooks.didReceiveResponse?(task, head) == .cancel { throw LupineError.cancelled }
            var body = ResponseStream(.network(response.body), task: task, hooks: self.hooks, tee: tee)
            guard case .done = try await sink.receive(&body, head: head, task: task) else {
                outcome.earlierMetrics.append(response.metrics)
                outcome.metrics = nil
                continue
            }
            outcome.metrics = response.metrics
            return
        }
    }

    /// Delivers a response the cache answered with instead of the network, and tells the monitors.
    private nonisolated(nonsending) func serve<Sink: ResponseSink>(
        _ stored: StoredResponse,
        into sink: inout Sink,
        task: SessionTask,
        outcome: inout ExecutionOutcome
    ) async throws {
        outcome.head = stored.head
        outcome.cacheStatus = stored.status
        task.didReceive(stored.head)
        var body = ResponseStream(stored.source, task: task, hooks: self.hooks)
        _ = try await sink.receive(&body, head: stored.head, task: task)
        if let reported = stored.reported {
            self.features.tell { $0.task(task, didReceiveCachedResponse: CachedResponse(head: stored.head, data: reported)) }
        }
    }

    /// `request` as it is sent: adapted by the request's ``RequestInterceptor``, then the
    /// session's (reported to the monitors), then carrying a session tracer's context.
    private nonisolated(nonsending) func adapt(_ request: Request, task: SessionTask, retryCount: Int) async throws(LupineError) -> Request {
        var request = request
        if let interceptor = self.features.interceptor {
            do {
                let context = AdaptContext(task: task, retryCount: retryCount)
                // In the task itself: a hop to another Swift task on every request would cost more
                // than most adapters. One that waits (for a token) listens for the task's cancel
                // itself, as AuthenticationInterceptor does.
                let adapted = try await interceptor.adapt(request, for: context)
                self.features.tell { [request] in $0.task(task, didAdapt: request, to: adapted) }
                request = adapted
            } catch {
                if task.isCancelling { throw .cancelled }
                throw LupineError(translating: error, from: .adapter)
            }
        }
        if let observation = self.features.observation {
            request = observation.propagatingContext(into: request)
        }
        return request
    }

    /// The bytes of a body nobody keeps (a redirect's, a challenge's, a retried or revalidated
    /// response's) that are read so its connection can serve another request; a longer body is
    /// left unread and its connection closed.
    static let drainLimit = 64 * 1024

    /// How long a body nobody keeps is read, at most, before its connection is closed instead.
    static let drainTime = Duration.seconds(1)

    /// Reads the rest of a body nobody keeps, up to ``drainLimit`` bytes and for at most
    /// ``drainTime``: a server cannot hold the task with an endless body, nor with one that
    /// trickles. The response's head has decided what comes next, so a body that fails (cut
    /// short, timed out, cancelled, or stopped here) only costs its connection: the caller
    /// checks for a cancel itself.
    static nonisolated(nonsending) func drain(_ body: ResponseBody) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var chunks = body.makeAsyncIterator()
                await Self.drain(&chunks)
            }
            group.addTask {
                try? await Task.sleep(for: Self.drainTime)
            }
            // Whichever ends first: the other is cancelled (a cancelled read ends the body, and
            // so its connection).
            await group.next()
            group.cancelAll()
        }
    }

    /// Reads the rest of a body whose first chunks may have been read already.
    static nonisolated(nonsending) func drain(_ chunks: inout ResponseBody.AsyncIterator) async {
        var read = 0
        do {
            while let chunk = try await chunks.next(isolation: #isolation) {
                read += chunk.readableBytes
                guard read <= Self.drainLimit else { return }
            }
        } catch {
            return
        }
    }
}
