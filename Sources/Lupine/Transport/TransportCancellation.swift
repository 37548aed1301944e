import Synchronization

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
        case active(handler: (@Sendable () -> Void)?)
        case cancelled
    }

    private let state = Mutex(State.active(handler: nil))

    /// Creates a handle that is not cancelled.
    public init() {}

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        self.state.withLock { state in
            if case .cancelled = state { return true }
            return false
        }
    }

    /// Cancels the step the transport is in now and every later one. Calling it again does nothing.
    public func cancel() {
        let handler: (@Sendable () -> Void)? = self.state.withLock { state in
            guard case .active(let handler) = state else { return nil }
            state = .cancelled
            return handler
        }
        handler?()
    }

    /// Runs `body` with `extra` run too by a ``cancel()`` meanwhile (before the current step's
    /// handler, which stays); afterwards the handle holds that step's handler alone again. Runs
    /// `extra` at once when the handle is already cancelled. For waits between a transport's
    /// steps that are not the transport's own (an adapter, a retrier, a retry delay), so the
    /// step before them (a response body not yet read) can still be cancelled too.
    func alsoCancelling<Result>(
        with extra: @escaping @Sendable () -> Void,
        during body: () async throws -> Result
    ) async rethrows -> Result {
        let current: (@Sendable () -> Void)?? = self.state.withLock { state in
            guard case .active(let handler) = state else { return nil }
            state = .active(handler: { extra(); handler?() })
            return .some(handler)
        }
        guard let current else {
            extra()
            return try await body()
        }
        defer {
            self.state.withLock { state in
                if case .active = state { state = .active(handler: current) }
            }
        }
        return try await body()
    }

    /// Makes `handler` what ``cancel()`` runs, replacing the handler of the transport's previous
    /// step (waiting for a connection, then the exchange on it); runs it at once when the handle
    /// is already cancelled. A transport calls this as it moves from step to step.
    public func whenCancelled(_ handler: @escaping @Sendable () -> Void) {
        let runNow = self.state.withLock { state in
            guard case .active = state else { return true }
            state = .active(handler: handler)
            return false
        }
        if runNow {
            handler()
        }
    }
}
