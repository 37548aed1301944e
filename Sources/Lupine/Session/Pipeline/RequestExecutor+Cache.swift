extension RequestExecutor {
    /// The stored response that answers `request` under its cache policy, or `nil` to go to the
    /// network; see ``ResponseCache`` for what each policy takes.
    ///
    /// - Throws: ``LupineError/resourceUnavailable(_:)`` for a miss under
    ///   ``Request/CachePolicy/returnCacheDataDontLoad``.
    nonisolated(nonsending) func cachedResponse(for request: Request, in cache: any ResponseCache, task: SessionTask) async throws(LupineError) -> CachedResponse? {
        guard request.cachePolicy != .reloadIgnoringLocalCacheData else { return nil }
        let found: CachedResponse
        // Asked in the task itself (a cache answers at once): no hop to another Swift task on
        // every request. A cancel during the lookup stops the task right after it.
        let lookup = await cache.lookup(request)
        if task.isCancelling { throw .cancelled }
        switch (request.cachePolicy, lookup) {
        case (_, .fresh(let response)),
            (.returnCacheDataElseLoad, .stale(let response)),
            (.returnCacheDataDontLoad, .stale(let response)):
            found = response
        case (.returnCacheDataDontLoad, .miss):
            throw .resourceUnavailable(request.url)
        default:
            return nil
        }
        self.features.tell { $0.task(task, didReceiveCachedResponse: found) }
        return found
    }

    /// Offers a response read whole to the task's ``CachedResponseHandler`` and stores what it
    /// returns.
    nonisolated(nonsending) func offer(_ response: CachedResponse, for request: Request, to cache: any ResponseCache, task: SessionTask) async {
        var kept: CachedResponse? = response
        if let handler = self.features.cachedResponseHandler {
            kept = await handler.task(task, willCache: response)
        }
        // A task cancelled meanwhile stores nothing.
        if let kept, !task.isCancelling {
            await cache.store(kept, for: request)
        }
    }
}
