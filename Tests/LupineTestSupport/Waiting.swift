/// Waits until `condition` holds, checking every few milliseconds, or throws ``WaitTimeout``
/// after `timeout`: for what only polling can see (a server's counts, a file a child writes).
/// The bound tells "soon" from "never" on a loaded machine; it is no measurement.
public func waitUntil(
    timeout: Duration = .seconds(120),
    _ description: String,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            throw WaitTimeout(description: description)
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// ``waitUntil(timeout:_:_:)`` gave up, or something a test waited for never came.
public struct WaitTimeout: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// Runs `body`, then `cleanup` whether `body` returned or threw: the shape of every test scope
/// that starts a server or a session and must stop it either way.
public func running<Result>(_ body: () async throws -> Result, thenAlways cleanup: () async -> Void) async throws -> Result {
    let result: Result
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
