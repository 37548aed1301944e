import NIOCore

/// The pool's one timer for the deadlines of requests waiting for a connection and the idle
/// timeouts of parked connections.
///
/// Nothing is scheduled per request: the sweep is armed only when nothing is armed or when a new
/// deadline falls before the armed one, which under steady load (every deadline later than the
/// last) is about once per timeout. When it fires it fails the waiters past their deadline, closes
/// the connections idle for too long, and re-arms for the earliest deadline left.
extension ConnectionPool {
    /// Makes sure the sweep runs no later than `due`; called with the state locked.
    func arm(_ state: inout State, until due: NIODeadline) {
        if let armed = state.sweep, armed.due <= due {
            return
        }
        state.sweep?.task.cancel()
        let task = self.eventLoopGroup.any().scheduleTask(deadline: due) { [weak self] () -> Void in
            guard let self else { return }
            self.sweep()
        }
        state.sweep = (due, task)
    }

    private func sweep() {
        let now = NIODeadline.now()
        let (expired, idleActions) = self.state.withLockedValue { state in
            state.sweep = nil
            var next: NIODeadline?
            var expired: [(WaiterID, PoolKey)] = []
            for (id, waiter) in state.waiters {
                guard case .waiting(_, let key, let deadline?, _) = waiter else { continue }
                if deadline.at <= now {
                    expired.append((id, key))
                } else {
                    next = min(next ?? deadline.at, deadline.at)
                }
            }
            var idleActions: [(PoolKey, [Action])] = []
            for key in state.hosts.keys {
                for (id, idle) in state.hosts[key]?.idleDeadlines ?? [:] {
                    if idle.at <= now {
                        state.hosts[key]?.idleDeadlines[id] = nil
                        idleActions.append((key, state.hosts[key]?.stateMachine.idleTimeoutFired(id, generation: idle.generation) ?? []))
                    } else {
                        next = min(next ?? idle.at, idle.at)
                    }
                }
            }
            if let next, !state.isShutDown {
                self.arm(&state, until: next)
            }
            return (expired, idleActions)
        }
        for (waiter, key) in expired {
            self.abandon(waiter, key: key, reason: .timedOut)
        }
        for (key, actions) in idleActions {
            self.perform(actions, key: key)
        }
    }
}
