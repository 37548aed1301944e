import NIOConcurrencyHelpers
import NIOCore

/// Performs what the ``ConnectionPoolStateMachine`` decides: opens and closes connections, times
/// out idle connections and waiting requests (one timer for all, `+Sweep.swift`), and hands
/// connections to the requests waiting for one.
final class ConnectionPool: Sendable {
    typealias ConnectionID = ConnectionPoolStateMachine.ConnectionID
    typealias WaiterID = ConnectionPoolStateMachine.WaiterID
    typealias Action = ConnectionPoolStateMachine.Action

    /// One host's connections. A class: `hosts[key]?.stateMachine.…` on a struct goes through
    /// the dictionary's modify coroutine, whose frame is allocated, several times per request.
    ///
    /// `@unchecked Sendable`: only touched inside `state.withLockedValue`, under the pool's lock.
    final class HostPool: @unchecked Sendable {
        var stateMachine: ConnectionPoolStateMachine
        var connections: [ConnectionID: HTTPConnection] = [:]
        /// When parked connections time out, with the generation of their idleness; the sweep
        /// reads them, and leasing or closing the connection forgets them.
        var idleDeadlines: [ConnectionID: (at: NIODeadline, generation: Int)] = [:]

        init(stateMachine: ConnectionPoolStateMachine) {
            self.stateMachine = stateMachine
        }
    }

    enum Waiter {
        /// The ID is handed out but the request has not yet registered how to deliver to it.
        case allocated
        /// Cancelled or timed out before it registered; registration fails at once.
        case abandonedEarly(ConnectionPoolStateMachine.FailureReason)
        /// `deliver` starts the request on the connection it is given, where the connection was
        /// freed (its event loop, for a released one), or declines it; or fails the request.
        case waiting(
            deliver: @Sendable (Result<HTTPConnection, any Error>) -> Bool,
            key: PoolKey,
            deadline: (at: NIODeadline, timeout: TimeAmount)?,
            requiresNewConnection: Bool
        )
    }

    private enum LeaseOutcome {
        case leased(HTTPConnection, Waiter?)
        case requeued([Action])
    }

    struct State {
        var hosts: [PoolKey: HostPool] = [:]
        var waiters: [WaiterID: Waiter] = [:]
        var nextWaiterID = 0
        var isShutDown = false
        /// The pool's one timer, for waiters' deadlines and idle timeouts, and when it fires.
        var sweep: (due: NIODeadline, task: Scheduled<Void>)?
    }

    let state = NIOLockedValueBox(State())
    private let factory: ConnectionFactory
    let eventLoopGroup: any EventLoopGroup
    private let configuration: TransportConfiguration

    init(configuration: TransportConfiguration, eventLoopGroup: any EventLoopGroup) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.factory = ConnectionFactory(configuration: configuration)
    }

    /// Asks for a connection to `key`, in arrival order, until `deadline` or until `cancellation`
    /// is cancelled, and hands it (or why there is none) to `deliver`. An idle connection is
    /// handed over at once, on the calling thread; a request that has to wait gets its connection
    /// from whoever freed it (the connection's event loop, as it ends the previous request), and
    /// starts there: the caller is never resumed just to hop back to the loop. Returns the waiter
    /// to ``abandon(_:key:reason:)`` if the caller gives up, or `nil` when delivered at once.
    /// `deliver` returns whether it took the connection: one declined (its request was cancelled
    /// as it came) goes back to the pool unused.
    @discardableResult
    func lease(
        _ key: PoolKey,
        requiresNewConnection: Bool,
        deadline: (at: NIODeadline, timeout: TimeAmount)?,
        cancellation: TransportCancellation,
        deliver: @escaping @Sendable (Result<HTTPConnection, any Error>) -> Bool
    ) -> WaiterID? {
        if !requiresNewConnection, let idle = self.leaseIdleConnection(key) {
            if !deliver(.success(idle)) {
                self.release(idle.id, key: key, reusable: true)
            }
            return nil
        }
        let waiter = self.state.withLockedValue { state in
            state.nextWaiterID += 1
            state.waiters[state.nextWaiterID] = .allocated
            return state.nextWaiterID
        }
        cancellation.whenCancelled { self.abandon(waiter, key: key, reason: .cancelled) }
        let registered: Result<[Action], TransportError> = self.state.withLockedValue { state in
            let earlyFailure: ConnectionPoolStateMachine.FailureReason?
            switch state.waiters[waiter] {
            case .abandonedEarly(let reason): earlyFailure = reason
            default: earlyFailure = state.isShutDown ? .shutdown : nil
            }
            if let earlyFailure {
                state.waiters[waiter] = nil
                return .failure(earlyFailure.transportError(connectError: nil, timeout: deadline?.timeout))
            }
            state.waiters[waiter] = .waiting(
                deliver: deliver,
                key: key,
                deadline: deadline,
                requiresNewConnection: requiresNewConnection
            )
            if let deadline {
                self.arm(&state, until: deadline.at)
            }
            let pool: HostPool
            if let existing = state.hosts[key] {
                pool = existing
            } else {
                pool = HostPool(stateMachine: .init(maximumConnections: self.configuration.maximumConnectionsPerHost))
                state.hosts[key] = pool
            }
            return .success(pool.stateMachine.waiterArrived(waiter, requiresNewConnection: requiresNewConnection))
        }
        switch registered {
        case .success(let actions):
            self.perform(actions, key: key)
        case .failure(let error):
            _ = deliver(.failure(error))
        }
        return waiter
    }

    /// The fast path of ``lease(_:requiresNewConnection:deadline:cancellation:deliver:)``: an idle connection taken
    /// without suspending the caller, or `nil` when the request has to wait.
    private func leaseIdleConnection(_ key: PoolKey) -> HTTPConnection? {
        self.state.withLockedValue { state in
            guard !state.isShutDown, state.hosts[key]?.stateMachine.canLeaseImmediately == true else { return nil }
            state.nextWaiterID += 1
            let waiter = state.nextWaiterID
            let actions = state.hosts[key]?.stateMachine.waiterArrived(waiter) ?? []
            guard actions.count == 1, case .lease(let id, waiter) = actions[0],
                let connection = state.hosts[key]?.connections[id]
            else {
                // Not reached: a connection the state machine holds idle is always in `connections`.
                return nil
            }
            state.hosts[key]?.idleDeadlines[id] = nil
            return connection
        }
    }

    /// Fails queued requests, closes every connection and returns when all are closed.
    func shutdown() async {
        let (actions, connections) = self.state.withLockedValue { state in
            state.isShutDown = true
            state.sweep?.task.cancel()
            state.sweep = nil
            var actions: [(PoolKey, [Action])] = []
            var connections: [HTTPConnection] = []
            for key in state.hosts.keys {
                actions.append((key, state.hosts[key]?.stateMachine.shutdown() ?? []))
                connections += state.hosts[key]?.connections.values.map { $0 } ?? []
            }
            return (actions, connections)
        }
        for (key, keyActions) in actions {
            self.perform(keyActions, key: key)
        }
        for connection in connections {
            connection.close()
            try? await connection.channel.closeFuture.get()
        }
    }

    // MARK: Events

    func abandon(_ waiter: WaiterID, key: PoolKey, reason: ConnectionPoolStateMachine.FailureReason) {
        let actions: [Action] = self.state.withLockedValue { state in
            switch state.waiters[waiter] {
            case .allocated:
                state.waiters[waiter] = .abandonedEarly(reason)
                return []
            case .waiting:
                return state.hosts[key]?.stateMachine.waiterAbandoned(waiter, reason: reason) ?? []
            case .abandonedEarly, nil:
                return []
            }
        }
        self.perform(actions, key: key)
    }

    private func release(_ connection: ConnectionID, key: PoolKey, reusable: Bool) {
        let actions = self.state.withLockedValue { state in
            state.hosts[key]?.stateMachine.connectionReleased(connection, reusable: reusable) ?? []
        }
        self.perform(actions, key: key)
    }

    private func connectionClosed(_ connection: ConnectionID, key: PoolKey) {
        let actions = self.state.withLockedValue { state in
            state.hosts[key]?.connections[connection] = nil
            state.hosts[key]?.idleDeadlines[connection] = nil
            return state.hosts[key]?.stateMachine.connectionClosed(connection) ?? []
        }
        self.perform(actions, key: key)
    }

    // MARK: Effects

    func perform(_ actions: [Action], key: PoolKey, connectError: (any Error)? = nil) {
        for action in actions {
            switch action {
            case .createConnection(let id):
                self.createConnection(id, key: key)
            case .lease(let id, let waiter):
                let outcome: LeaseOutcome = self.state.withLockedValue { state in
                    guard let connection = state.hosts[key]?.connections[id] else {
                        // The connection closed between the decision and now: queue the waiter again.
                        var requiresNew = false
                        if case .waiting(_, _, _, let requires) = state.waiters[waiter] {
                            requiresNew = requires
                        }
                        let actions = state.hosts[key]?.stateMachine.waiterArrived(waiter, requiresNewConnection: requiresNew)
                        return .requeued(actions ?? [])
                    }
                    state.hosts[key]?.idleDeadlines[id] = nil
                    return .leased(connection, state.waiters.removeValue(forKey: waiter))
                }
                switch outcome {
                case .requeued(let actions):
                    self.perform(actions, key: key)
                case .leased(let connection, .waiting(let deliver, _, _, _)):
                    if !deliver(.success(connection)) {
                        self.release(id, key: key, reusable: true)
                    }
                case .leased:
                    continue
                }
            case .scheduleIdleTimeout(let id, let generation):
                self.state.withLockedValue { state in
                    guard state.hosts[key]?.connections[id] != nil else { return }
                    let due = NIODeadline.now() + self.configuration.idleConnectionTimeout
                    state.hosts[key]?.idleDeadlines[id] = (due, generation)
                    self.arm(&state, until: due)
                }
            case .closeConnection(let id):
                let connection = self.state.withLockedValue { state in
                    state.hosts[key]?.idleDeadlines[id] = nil
                    return state.hosts[key]?.connections.removeValue(forKey: id)
                }
                connection?.close()
            case .failWaiter(let waiter, let reason):
                let waiting = self.state.withLockedValue { $0.waiters.removeValue(forKey: waiter) }
                guard case .waiting(let deliver, _, let deadline, _) = waiting else { continue }
                _ = deliver(.failure(reason.transportError(connectError: connectError, timeout: deadline?.timeout)))
            }
        }
    }

    private func createConnection(_ id: ConnectionID, key: PoolKey) {
        let connecting = self.factory.makeConnection(
            id: id,
            key: key,
            eventLoop: self.eventLoopGroup.next()
        ) { [weak self] reusable in
            self?.release(id, key: key, reusable: reusable)
        }
        connecting.whenComplete { result in
            switch result {
            case .success(let connection):
                let actions = self.state.withLockedValue { state in
                    state.hosts[key]?.connections[id] = connection
                    return state.hosts[key]?.stateMachine.connectionEstablished(id) ?? []
                }
                connection.channel.closeFuture.whenComplete { [weak self] _ in
                    self?.connectionClosed(id, key: key)
                }
                self.perform(actions, key: key)
            case .failure(let error):
                let actions = self.state.withLockedValue { state in
                    state.hosts[key]?.stateMachine.connectionFailed(id) ?? []
                }
                self.perform(actions, key: key, connectError: error)
            }
        }
    }
}
