extension RequestExecutor {
    /// The stored response that answers `request` under its cache policy, or `nil` to go to the
    /// network; see ``ResponseCache`` for what each policy takes.
    ///
    /// - Throws: ``LupineError/resourceUnavailable(_:)`` for a miss under
    ///   ``Request/CachePolicy/returnCacheDataDontLoad``.
    func cachedResponse(for request: Request, in cache: any ResponseCache, task: SessionTask) async throws(LupineError) -> CachedResponse? {
        guard request.cachePolicy != .reloadIgnoringLocalCacheData else { return nil }
        let found: CachedResponse
        switch (request.cachePolicy, await cache.lookup(request)) {
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
    func offer(_ response: CachedResponse, for request: Request, to cache: any ResponseCache, task: SessionTask) async {
        var kept: CachedResponse? = response
        if let handler = self.features.cachedResponseHandler {
            kept = await handler.task(task, willCache: response)
        }
        if let kept {
            await cache.store(kept, for: request)
        }
    }
}
