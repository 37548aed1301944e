import Foundation

/// The background revalidations of `stale-while-revalidate` (RFC 5861 §3): at most one per URL
/// at a time, whichever session started it, and at most ``maximumRevalidations`` in all.
extension HTTPCache {
    /// How many background revalidations may run at once: a burst of stale hits on many URLs
    /// must not fill the connection pool ahead of the requests callers wait for. A hit past it
    /// is served stale all the same, and a later one revalidates.
    static let maximumRevalidations = 2

    /// Runs `revalidation` on a Swift task of its own unless one is already running for the URL
    /// of `primaryKey`, or ``maximumRevalidations`` are; whether it was started.
    @discardableResult
    func startRevalidation(primaryKey: String, _ revalidation: @escaping @Sendable () async -> Void) -> Bool {
        self.revalidations.withLockedValue { running in
            guard running[primaryKey] == nil, running.count < Self.maximumRevalidations else { return false }
            // The task's last step waits for this lock, so it finds itself registered.
            running[primaryKey] = Task {
                await revalidation()
                self.revalidations.withLockedValue { $0[primaryKey] = nil }
            }
            return true
        }
    }

    /// Whether a background revalidation of `primaryKey`'s URL is running.
    func isRevalidating(primaryKey: String) -> Bool {
        self.revalidations.withLockedValue { $0[primaryKey] != nil }
    }

    /// Returns once no background revalidation (`stale-while-revalidate`) of this cache is
    /// running, those started meanwhile included: a process about to exit can let them store
    /// what they bring, or invalidate its session to abandon them.
    public func backgroundRevalidationsFinished() async {
        while let next = self.revalidations.withLockedValue({ $0.values.first }) {
            await next.value
        }
    }
}
