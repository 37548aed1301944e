import NIOConcurrencyHelpers
import Foundation

/// Named gates the gated endpoints wait at until a test opens them, so a test can hold a
/// response back for as long as it needs without sleeping. A gate, once open, stays open.
final class RequestGates: Sendable {
    private struct State {
        var open: Set<String> = []
        var waiters: [String: [UUID: CheckedContinuation<Bool, Never>]] = [:]
    }

    /// The most gates kept, open or waited at.
    let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Returns once gate `key` is open, or when the calling task is cancelled; `false` when
    /// `capacity` gates are in use already and this one is not among them.
    func wait(for key: String) async -> Bool {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let passNow: Bool? = self.state.withLockedValue { state in
                    if state.open.contains(key) || Task.isCancelled { return true }
                    guard state.waiters[key] != nil || state.open.count + state.waiters.count < self.capacity else {
                        return false
                    }
                    state.waiters[key, default: [:]][id] = continuation
                    return nil
                }
                if let passNow { continuation.resume(returning: passNow) }
            }
        } onCancel: {
            let waiter = self.state.withLockedValue { state in
                let waiter = state.waiters[key]?.removeValue(forKey: id)
                if state.waiters[key]?.isEmpty == true { state.waiters[key] = nil }
                return waiter
            }
            waiter?.resume(returning: true)
        }
    }

    /// Opens gate `key`, letting its waiters through; returns how many were waiting.
    @discardableResult
    func open(_ key: String) -> Int {
        let waiters = self.state.withLockedValue { state in
            state.open.insert(key)
            return state.waiters.removeValue(forKey: key) ?? [:]
        }
        for waiter in waiters.values {
            waiter.resume(returning: true)
        }
        return waiters.count
    }
}
