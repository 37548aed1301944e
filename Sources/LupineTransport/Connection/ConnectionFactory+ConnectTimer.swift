import NIOCore

extension ConnectionFactory {
    /// Marks the phases that begin the moment a channel's connect completes: the connect's end,
    /// then the tunnel's start through a proxy, or the TLS handshake's start when TLS is spoken
    /// straight to the origin. It sits first in the pipeline and leaves it at once, so the marks
    /// precede whatever the handlers behind it do on `channelActive` (a tunnel that writes its
    /// `CONNECT`, a TLS handler that starts its handshake), however late happy eyeballs completes
    /// the connect's own future. (That future's callback marks the connect's end too: whichever
    /// comes first sets it.)
    final class ConnectTimer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        private let setup: MetricsRecorder
        private let phases: [TransportMetrics.Phase]

        init(setup: MetricsRecorder, then phases: [TransportMetrics.Phase]) {
            self.setup = setup
            self.phases = phases
        }

        func channelActive(context: ChannelHandlerContext) {
            self.setup.mark(.connectEnd)
            for phase in self.phases {
                self.setup.mark(phase)
            }
            context.fireChannelActive()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}

@available(*, unavailable)
extension ConnectionFactory.ConnectTimer: Sendable {}
