import Foundation

/// The one background request of `stale-while-revalidate` (RFC 5861 §3): the stale response
/// has been delivered, and this request refreshes the stored one for the next.
extension RequestExecutor {
    /// Starts revalidating `entry` in the background, unless a revalidation of its URL is
    /// already running or the session is invalidated.
    ///
    /// The request is `keyed` (the task's, as the cache saw it) with `conditions`, adapted by the
    /// task's interceptor, sent once (no retry), with Basic challenges answered and cookies as
    /// any request of the session, but no redirect followed (a `3xx` ends it). A `304` refreshes
    /// the entry, a storable `2xx` replaces it (the ``CachedResponseHandler`` is asked, as for
    /// any response), anything else, or a failure, leaves it. It runs as a task of its own,
    /// reported to no hook or monitor, that invalidating the session cancels.
    func revalidateInBackground(_ entry: CacheEntry, conditions: HTTPHeaders, keyed: Request, in cache: HTTPCache, for task: SessionTask) {
        var request = keyed
        for (name, value) in conditions {
            request.headers.replaceOrAdd(name: name, value: value)
        }
        var features = self.features
        features.redirectHandler = Redirector.doNotFollow
        features.monitors = []
        let revalidator = RequestExecutor(
            transport: self.transport,
            hooks: SessionHooks(),
            features: features,
            maximumRedirects: 0,
            credential: self.credential,
            serverTrustEvaluator: self.serverTrustEvaluator,
            clientIdentityProvider: self.clientIdentityProvider,
            logger: self.logger
        )
        let background = DataTask(
            identifier: task.taskIdentifier,
            request: request,
            delegate: TaskDelegate(uploadProgress: nil, downloadProgress: nil),
            bodyDestination: .memory,
            tell: { _, _ in }
        )
        let backgroundTasks = self.features.backgroundTasks
        // Weak: the body must not keep its own task alive when it never runs (the session was
        // invalidated first); while it runs, the revalidation below holds the task.
        background.install { [weak background] in
            guard let background else { return }
            await revalidator.revalidate(entry, with: background.originalRequest, in: cache, background: background)
        }
        cache.startRevalidation(primaryKey: entry.record.primaryKey) {
            guard backgroundTasks.admit(background) else { return }
            defer { backgroundTasks.release(background) }
            await background.resumeInline()
        }
    }

    /// Sends the background request and puts what it brings into `cache`.
    private nonisolated(nonsending) func revalidate(_ entry: CacheEntry, with request: Request, in cache: HTTPCache, background: SessionTask) async {
        do {
            var adapted = request
            if let interceptor = self.features.interceptor {
                adapted = try await interceptor.adapt(request, for: AdaptContext(task: background, retryCount: 0))
            }
            var outcome = ExecutionOutcome(request: adapted)
            var times = CacheExchangeTimes(requestTime: Date(), responseTime: Date())
            let (response, head) = try await self.exchange(background, startingWith: adapted, outcome: &outcome)
            times.responseTime = Date()
            switch head.statusCode {
            case 304 where !entry.record.conditions.isEmpty:
                await Self.drain(response.body)
                _ = cache.refresh(entry, with: head, requestTime: times.requestTime, responseTime: times.responseTime)
            case 200..<300:
                cache.invalidate(after: adapted, response: head)
                guard let storedAs = Self.storageRequest(for: request, sent: outcome.request, redirected: false),
                    let writer = await self.streamWriter(head: head, for: storedAs, in: cache, exchange: times, task: background)
                else {
                    await Self.drain(response.body)
                    return
                }
                do {
                    // A body the cache would not keep (larger than it, endless) is not read on:
                    // stopping closes its connection.
                    try await self.forEachChunk(of: response.body, for: background) { chunk in
                        writer.append(chunk)
                        guard writer.isKeeping else { throw NotKept() }
                    }
                } catch {
                    writer.abandon()
                    throw error
                }
                writer.commit()
            default:
                await Self.drain(response.body)
            }
        } catch {
            self.logger.debug("Background revalidation ended", metadata: ["url": "\(request.url)", "error": "\(error)"])
        }
    }

    /// The body being stored outgrew the cache.
    private struct NotKept: Error, CustomStringConvertible {
        var description: String { "the response is larger than the cache keeps" }
    }
}
