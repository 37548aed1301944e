import NIOCore

/// A countdown that closes a connection unless it is cancelled first.
///
/// Owned by one channel handler and used on that channel's event loop only. The listeners add
/// their handlers before a connection becomes active, so the first countdown starts in
/// `channelActive`.
struct ConnectionDeadline {
    /// How long the countdown runs.
    let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    /// Starts the countdown, restarting it if it was running.
    mutating func start(_ context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }

    /// Stops the countdown, if it was running.
    mutating func cancel() {
        scheduled?.cancel()
        scheduled = nil
    }
}
