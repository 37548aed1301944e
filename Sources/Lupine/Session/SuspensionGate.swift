import NIOConcurrencyHelpers

/// A gate an async loop passes through before each step: open, it passes at once; closed, it
/// waits until opened. A task's body reader waits here while the task is suspended, so the
/// transport sees no demand and stops reading from the socket.
final class SuspensionGate: Sendable {
    private struct State {
        var isOpen = true
        /// Opened for good: the task was cancelled, and no `close()` may trap its reader again.
        var isTerminated = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Closes the gate: later `pass()` calls wait. Does nothing once terminated.
    func close() {
        self.state.withLockedValue { state in
            if !state.isTerminated { state.isOpen = false }
        }
    }

    /// Opens the gate for good and releases everyone waiting.
    func terminate() {
        self.state.withLockedValue { $0.isTerminated = true }
        self.open()
    }

    /// Opens the gate and releases everyone waiting.
    func open() {
        let waiters = self.state.withLockedValue { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    /// Returns when the gate is open.
    func pass() async {
        // The common case, an open gate, costs a lock and no suspension.
        if self.state.withLockedValue({ $0.isOpen }) {
            return
        }
        await withCheckedContinuation { continuation in
            let passNow = self.state.withLockedValue { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if passNow {
                continuation.resume()
            }
        }
    }
}
