import NIOConcurrencyHelpers

/// Cancels a transport request from outside the Swift task that runs it.
///
/// Cancelling the Swift task that awaits ``Transport/execute(_:)`` or iterates the
/// ``ResponseBody`` cancels the request too; this handle is for the code that has no such task to
/// cancel, such as a session task that runs in its caller's Swift task. Hand the same handle to
/// every request of one logical operation (its redirects and retries), one request at a time:
/// the handle holds the handler of the request's current step only. Once cancelled it stays
/// cancelled, and every later request given it fails with ``TransportError/cancelled``.
public final class TransportCancellation: Sendable {
    private enum State {
        /// `handler` is the transport's current step's; `waits` are the session's own (a retry
        /// delay, a wait for a credential), kept beside it by token.
        case active(handler: (@Sendable () -> Void)?, waits: [Int: @Sendable () -> Void], nextToken: Int)
        case cancelled
    }

    private let state = NIOLockedValueBox(State.active(handler: nil, waits: [:], nextToken: 0))

    /// Creates a handle that is not cancelled.
    public init() {}

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        self.state.withLockedValue { state in
            if case .cancelled = state { return true }
            return false
        }
    }

    /// Cancels the step the transport is in now and every later one. Calling it again does nothing.
    public func cancel() {
        let handlers: [@Sendable () -> Void] = self.state.withLockedValue { state in
            guard case .active(let handler, let waits, _) = state else { return [] }
            state = .cancelled
            return Array(waits.values) + (handler.map { [$0] } ?? [])
        }
        for handler in handlers {
            handler()
        }
    }

    /// Makes `handler` what ``cancel()`` runs, replacing the handler of the transport's previous
    /// step (waiting for a connection, then the exchange on it); runs it at once when the handle
    /// is already cancelled. A transport calls this as it moves from step to step.
    public func whenCancelled(_ handler: @escaping @Sendable () -> Void) {
        let runNow = self.state.withLockedValue { state in
            guard case .active(_, let waits, let nextToken) = state else { return true }
            state = .active(handler: handler, waits: waits, nextToken: nextToken)
            return false
        }
        if runNow {
            handler()
        }
    }

    /// Runs `body` with `handler` added to what ``cancel()`` runs, beside the transport's
    /// current step's handler (which it leaves in place); runs `handler` at once when the handle
    /// is already cancelled. For the session's own waits between transport steps.
    package func whileWaiting<Result>(onCancel handler: @escaping @Sendable () -> Void, _ body: () async throws -> Result) async rethrows -> Result {
        let token: Int? = self.state.withLockedValue { state in
            guard case .active(let current, var waits, let nextToken) = state else { return nil }
            waits[nextToken] = handler
            state = .active(handler: current, waits: waits, nextToken: nextToken + 1)
            return nextToken
        }
        guard let token else {
            handler()
            return try await body()
        }
        defer {
            self.state.withLockedValue { state in
                guard case .active(let current, var waits, let nextToken) = state else { return }
                waits[token] = nil
                state = .active(handler: current, waits: waits, nextToken: nextToken)
            }
        }
        return try await body()
    }
}
