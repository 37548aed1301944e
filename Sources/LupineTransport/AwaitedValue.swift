import NIOConcurrencyHelpers

/// A value handed from one thread to the Swift task that awaits it, whichever of the two comes
/// first: a request's response head from its event loop, a task's completion from the code that
/// completes it. The awaiting side never hops to the delivering thread; a lock and, when it has
/// to wait, one continuation are all it costs.
package final class AwaitedValue<Value: Sendable>: Sendable {
    private enum State {
        case pending(CheckedContinuation<Value, Never>?)
        case delivered(Value)
        /// Handed over: the box no longer keeps the value alive.
        case taken
    }

    private let state = NIOLockedValueBox(State.pending(nil))

    package init() {}

    /// Hands over `value`; a second call does nothing.
    package func deliver(_ value: Value) {
        let waiting: CheckedContinuation<Value, Never>? = self.state.withLockedValue { state in
            guard case .pending(let continuation) = state else { return nil }
            state = continuation == nil ? .delivered(value) : .taken
            return continuation
        }
        waiting?.resume(returning: value)
    }

    /// The value ``deliver(_:)`` received, waiting for it if need be. Only one caller may wait.
    nonisolated(nonsending) package func value() async -> Value {
        // When the value came first: no continuation needed.
        if let delivered = self.take() {
            return delivered
        }
        return await withCheckedContinuation { continuation in
            let ready: Value? = self.state.withLockedValue { state in
                if case .delivered(let value) = state {
                    state = .taken
                    return value
                }
                state = .pending(continuation)
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
            }
        }
    }

    private func take() -> Value? {
        self.state.withLockedValue { state in
            guard case .delivered(let value) = state else { return nil }
            state = .taken
            return value
        }
    }
}
