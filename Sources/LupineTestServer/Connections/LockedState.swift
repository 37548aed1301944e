import Foundation

/// A value that is only ever read or written while holding a lock.
///
/// The package supports macOS 14, where `Synchronization.Mutex` is unavailable, so this small box
/// over `NSLock` stands in for it.
final class LockedState<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, which holds `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the protected value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
