import NIOCore

/// The request's timeouts, kept by the connection's ``RequestWatchdog``.
extension HTTPClientRequestHandler {
    /// Starts watching the request that has just started.
    func watch(_ request: PreparedRequest, readTimeout: TimeAmount?) {
        if let deadline = request.deadline {
            self.watchdog.watch(until: deadline.at)
        }
        if let readTimeout {
            self.watchdog.watch(until: self.eventLoop.now + readTimeout)
        }
    }

    /// Checks the request in flight (if any) against its deadline and the machine's read timer,
    /// and has the watchdog fire again when the next check falls due.
    func checkTimeouts() {
        guard let exchange else { return }
        let now = self.eventLoop.now
        if let deadline = exchange.request.deadline {
            if now >= deadline.at {
                self.perform(self.machine.deadlinePassed(exchange.id, timeout: deadline.timeout))
                return
            }
            self.watchdog.watch(until: deadline.at)
        }
        // The machine answers with the read check's next due time, or fails the request.
        self.perform(self.machine.readTimerFired(exchange.id, now: now))
    }
}
