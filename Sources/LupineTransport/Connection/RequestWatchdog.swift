import NIOCore

/// The one timer for the idle-read and whole-request timeouts of the requests on a connection.
///
/// It is armed lazily and only ever moved earlier: a check that falls due no sooner than the armed
/// instant costs nothing, and the timer outlives the request that armed it. When it fires it calls
/// ``fired``, which checks the requests in flight against their deadlines and read timers and
/// re-arms for whatever falls due next. A keep-alive connection under steady load so touches the
/// event loop's timer heap about once per timeout instead of twice per request.
///
/// An HTTP/1.1 connection's request handler owns one. An HTTP/2 connection's streams share their
/// connection's, which checks every stream when it fires: a stream then costs no timer of its own
/// (scheduling and cancelling one per request was a measurable part of each request's cost).
///
/// Confined to the connection's event loop.
final class RequestWatchdog {
    private let eventLoop: any EventLoop
    private var armed: (due: NIODeadline, task: Scheduled<Void>)?
    /// What runs when the timer fires.
    var fired: () -> Void = {}

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Makes sure the timer fires no later than `due`.
    func watch(until due: NIODeadline) {
        if let armed = self.armed, armed.due <= due {
            return
        }
        self.armed?.task.cancel()
        let task = self.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
            self.armed = nil
            self.fired()
        }
        self.armed = (due, task)
    }

    /// Stops the timer for good: the connection is going away.
    func stop() {
        self.armed?.task.cancel()
        self.armed = nil
        self.fired = {}
    }
}

@available(*, unavailable)
extension RequestWatchdog: Sendable {}
