import NIOCore

/// The connection's one timer for the idle-read and whole-request timeouts.
///
/// It is armed lazily and only ever moved earlier: a request whose checks fall due no sooner than
/// the armed instant costs nothing, and the timer outlives the request that armed it. When it
/// fires it checks the request in flight (if any) against its deadline and the machine's read
/// timer, then re-arms for whatever falls due next. A keep-alive connection under steady load so
/// touches the event loop's timer heap about once per timeout instead of twice per request.
extension HTTPClientRequestHandler {
    /// Makes sure the watchdog fires no later than `due`.
    func watch(until due: NIODeadline) {
        if let armed = self.watchdog, armed.due <= due {
            return
        }
        self.watchdog?.task.cancel()
        let task = self.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
            self.watchdog = nil
            self.watchdogFired()
        }
        self.watchdog = (due, task)
    }

    /// Stops the watchdog for good: the connection is going away.
    func stopWatching() {
        self.watchdog?.task.cancel()
        self.watchdog = nil
    }

    /// Starts watching the request that has just started.
    func watch(_ request: PreparedRequest, readTimeout: TimeAmount?) {
        if let deadline = request.deadline {
            self.watch(until: deadline.at)
        }
        if let readTimeout {
            self.watch(until: self.eventLoop.now + readTimeout)
        }
    }

    private func watchdogFired() {
        guard let exchange else { return }
        let now = self.eventLoop.now
        if let deadline = exchange.request.deadline {
            if now >= deadline.at {
                self.perform(self.machine.deadlinePassed(exchange.id, timeout: deadline.timeout))
                return
            }
            self.watch(until: deadline.at)
        }
        // The machine answers with the read check's next due time, or fails the request.
        self.perform(self.machine.readTimerFired(exchange.id, now: now))
    }
}
