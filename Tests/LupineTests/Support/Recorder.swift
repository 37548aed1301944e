import NIOConcurrencyHelpers

/// Collects values from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let values = NIOLockedValueBox<[Value]>([])

    func append(_ value: Value) {
        self.values.withLockedValue { $0.append(value) }
    }

    var all: [Value] { self.values.withLockedValue { $0 } }
}
