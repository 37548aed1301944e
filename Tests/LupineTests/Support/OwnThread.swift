import Foundation

/// Runs `work` on a thread of its own and returns what it returns. Long synchronous work in a
/// test (hashing hundreds of MiB, thousands of file operations) must not hold one of the few
/// threads of the concurrency pool, on which every other test's client and server wait: on two
/// cores that starves them into timeouts.
func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result { try work() })
        }.start()
    }
}
