import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Wraps a Hummingbird HTTP/1 child channel (over TLS or not) so that its pipeline answers
/// `Expect: 100-continue`: a ``ContinueResponseHandler`` goes right after NIO's HTTP/1 request
/// decoder, before Hummingbird converts requests to Swift HTTP types and drops their version.
struct ContinueAnsweringChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(ContinueResponseHandler(), position: .after(decoder.handler))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
