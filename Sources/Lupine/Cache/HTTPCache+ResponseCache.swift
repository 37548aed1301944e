import Foundation
import NIOCore

/// An ``HTTPCache`` is also a plain ``ResponseCache``, for code that asks a cache directly. A
/// session's cache stage asks the ``HTTPCache`` for its RFC 9111 decisions rather than these
/// whole responses: it validates with conditional requests, invalidates, and stores bodies as
/// they arrive.
extension HTTPCache: ResponseCache {
    /// The stored response for `request`, fresh or stale by RFC 9111 at this moment (a `HEAD`
    /// gets the stored `GET` response's head and no body).
    public func lookup(_ request: Request) async -> CacheLookup {
        let found: (entry: CacheEntry, fresh: Bool)
        switch self.decision(for: request, now: Date()) {
        case .fresh(let entry), .staleUsable(let entry):
            found = (entry, true)
        case .validate(let entry, _, _), .staleWhileRevalidate(let entry, _):
            found = (entry, false)
        case .miss, .unsatisfiable:
            return .miss
        }
        let entry = request.method == .HEAD ? found.entry.headOnly : found.entry
        guard let data = try? entry.readBody() else { return .miss }
        let response = CachedResponse(head: entry.head, data: data)
        return found.fresh ? .fresh(response) : .stale(response)
    }

    /// Stores `response` for `request` when RFC 9111 allows, as received at its `storedAt`.
    public func store(_ response: CachedResponse, for request: Request) async {
        guard let writer = self.writer(for: request, response: response.head, requestTime: response.storedAt, responseTime: response.storedAt) else {
            return
        }
        writer.append(ByteBuffer(bytes: response.data))
        writer.commit()
    }
}
