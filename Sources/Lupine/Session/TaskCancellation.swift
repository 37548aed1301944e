import LupineTransport
import NIOConcurrencyHelpers

/// A session task's cancellation: the transport's handle, which the transport's current step
/// listens to, and the session's own waits between transport steps (a retry's delay, a wait for
/// a credential), which the transport never sees. ``SessionTask/cancel()`` ends both, for a task
/// that runs in its caller's Swift task and so cannot be reached by cancelling one.
final class TaskCancellation: Sendable {
    /// What the task's transport requests carry.
    let transport = TransportCancellation()

    private struct Waits {
        var handlers: [Int: @Sendable () -> Void] = [:]
        var nextToken = 0
        var isCancelled = false
    }

    private let waits = NIOLockedValueBox(Waits())

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { self.transport.isCancelled }

    /// Ends the waits in progress, then the transport's current step and every later one.
    /// Calling it again does nothing.
    func cancel() {
        let handlers: [@Sendable () -> Void] = self.waits.withLockedValue { waits in
            guard !waits.isCancelled else { return [] }
            waits.isCancelled = true
            defer { waits.handlers = [:] }
            return Array(waits.handlers.values)
        }
        for handler in handlers {
            handler()
        }
        self.transport.cancel()
    }

    /// Runs `body` with `handler` among what ``cancel()`` runs; runs `handler` at once when the
    /// task is already cancelled.
    func whileWaiting<Result>(onCancel handler: @escaping @Sendable () -> Void, _ body: () async throws -> Result) async rethrows -> Result {
        let token: Int? = self.waits.withLockedValue { waits in
            guard !waits.isCancelled else { return nil }
            defer { waits.nextToken += 1 }
            waits.handlers[waits.nextToken] = handler
            return waits.nextToken
        }
        guard let token else {
            handler()
            return try await body()
        }
        defer {
            self.waits.withLockedValue { _ = $0.handlers.removeValue(forKey: token) }
        }
        return try await body()
    }
}
