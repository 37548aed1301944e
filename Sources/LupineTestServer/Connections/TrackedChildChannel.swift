import HummingbirdCore
import Logging
import NIOCore

/// Wraps a Hummingbird child channel so every accepted connection is registered with a
/// ``ConnectionRegistry`` before its pipeline is set up.
struct TrackedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let registry: ConnectionRegistry

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        _ = registry.register(channel)
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
