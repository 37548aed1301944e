import Foundation

/// The one background request of `stale-while-revalidate` (RFC 5861 §3): the stale response
/// has been delivered, and this request refreshes the stored one for the next.
///
/// The request is `keyed` (the task's, as the cache saw it) with `conditions`, adapted by the
/// task's interceptor, sent once (no retry), with Basic challenges answered and cookies as any
/// request of the session, but no redirect followed (a `3xx` ends it). A `304` refreshes the
/// entry, a storable `2xx` replaces it (the ``CachedResponseHandler`` is asked, as for any
/// streamed response), anything else, or a failure, leaves it. It runs as a task of its own,
/// reported to no hook or monitor, that invalidating the session cancels.
struct BackgroundRevalidation {
    let entry: CacheEntry
    let request: Request
    let cache: HTTPCache
    /// Sends the request: the task's executor with no redirect, hook or monitor.
    let revalidator: RequestExecutor

    init(of entry: CacheEntry, conditions: HTTPHeaders, keyed: Request, in cache: HTTPCache, by executor: RequestExecutor) {
        var request = keyed
        for (name, value) in conditions {
            request.headers.replaceOrAdd(name: name, value: value)
        }
        var features = executor.features
        features.redirectHandler = Redirector.doNotFollow
        features.monitors = []
        self.entry = entry
        self.request = request
        self.cache = cache
        self.revalidator = RequestExecutor(
            transport: executor.transport,
            hooks: SessionHooks(),
            features: features,
            maximumRedirects: 0,
            credential: executor.credential,
            serverTrustEvaluator: executor.serverTrustEvaluator,
            clientIdentityProvider: executor.clientIdentityProvider,
            logger: executor.logger
        )
    }

    /// Starts the revalidation for `task`, unless one of its URL is already running or the
    /// session is invalidated.
    func start(for task: SessionTask) {
        let background = DataTask(
            identifier: task.taskIdentifier,
            request: self.request,
            delegate: TaskDelegate(uploadProgress: nil, downloadProgress: nil),
            bodyDestination: .memory,
            tell: { _, _ in }
        )
        let backgroundTasks = self.revalidator.features.backgroundTasks
        // Weak: the body must not keep its own task alive when it never runs (the session was
        // invalidated first); while it runs, the revalidation below holds the task.
        background.install { [weak background] in
            guard let background else { return }
            await self.run(background)
        }
        self.cache.startRevalidation(primaryKey: self.entry.record.primaryKey) {
            guard backgroundTasks.admit(background) else { return }
            defer { backgroundTasks.release(background) }
            await background.resumeInline()
        }
    }

    /// Sends the background request and puts what it brings into the cache.
    private nonisolated(nonsending) func run(_ background: SessionTask) async {
        do {
            var adapted = self.request
            if let interceptor = self.revalidator.features.interceptor {
                adapted = try await interceptor.adapt(self.request, for: AdaptContext(task: background, retryCount: 0))
            }
            var outcome = ExecutionOutcome(request: adapted)
            let requestTime = Date()
            let (response, head) = try await self.revalidator.exchange(background, startingWith: adapted, outcome: &outcome)
            let responseTime = Date()
            switch head.statusCode {
            case 304 where !self.entry.record.conditions.isEmpty:
                await RequestExecutor.drain(response.body)
                _ = self.cache.refresh(self.entry, with: head, requestTime: requestTime, responseTime: responseTime)
            case 200..<300:
                self.cache.invalidate(after: adapted, response: head)
                guard let storedAs = CacheStage.storageRequest(for: self.request, sent: outcome.request, redirected: false),
                    let kept = await CacheStage.verdict(
                        of: self.revalidator.features.cachedResponseHandler,
                        on: CachedResponse(head: head, data: []),
                        task: background
                    ),
                    let writer = self.cache.writer(for: storedAs, response: kept.head, requestTime: requestTime, responseTime: responseTime)
                else {
                    await RequestExecutor.drain(response.body)
                    return
                }
                var body = ResponseStream(.network(response.body), task: background, hooks: SessionHooks(), tee: CacheTee(writingTo: writer))
                // A body the cache would not keep (larger than it, endless) is not read on:
                // stopping closes its connection.
                while try await body.next() != nil {
                    guard writer.isKeeping else { throw NotKept() }
                }
            default:
                await RequestExecutor.drain(response.body)
            }
        } catch {
            self.revalidator.logger.debug("Background revalidation ended", metadata: ["url": "\(self.request.url)", "error": "\(error)"])
        }
    }

    /// The body being stored outgrew the cache.
    private struct NotKept: Error, CustomStringConvertible {
        var description: String { "the response is larger than the cache keeps" }
    }
}
