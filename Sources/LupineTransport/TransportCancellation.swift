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
        /// `handler` is the transport's current step's.
        case active(handler: (@Sendable () -> Void)?)
        case cancelled
    }

    private let state = NIOLockedValueBox(State.active(handler: nil))

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
        let handler: (@Sendable () -> Void)? = self.state.withLockedValue { state in
            guard case .active(let handler) = state else { return nil }
            state = .cancelled
            return handler
        }
        handler?()
    }

    /// Makes `handler` what ``cancel()`` runs, replacing the handler of the transport's previous
    /// step (waiting for a connection, then the exchange on it); runs it at once when the handle
    /// is already cancelled. A transport calls this as it moves from step to step.
    public func whenCancelled(_ handler: @escaping @Sendable () -> Void) {
        let runNow = self.state.withLockedValue { state in
            guard case .active = state else { return true }
            state = .active(handler: handler)
            return false
        }
        if runNow {
            handler()
        }
    }
}
