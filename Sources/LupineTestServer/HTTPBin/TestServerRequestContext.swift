import Hummingbird
import NIOCore

/// The request context of the main listener: Hummingbird's core storage plus the connection's
/// channel, so handlers can report the peer address and the connection identifier.
struct TestServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}
