import NIOConcurrencyHelpers
import NIOCore

/// Performs what the ``ConnectionPoolStateMachine`` decides: opens and closes connections, runs
/// idle timers, and resumes the requests waiting for a connection.
final class ConnectionPool: Sendable {
    typealias ConnectionID = ConnectionPoolStateMachine.ConnectionID
    typealias WaiterID = ConnectionPoolStateMachine.WaiterID
    typealias Action = ConnectionPoolStateMachine.Action

    private struct HostPool {
        var stateMachine: ConnectionPoolStateMachine
        var connections: [ConnectionID: HTTPConnection] = [:]
        /// Timers of parked connections, cancelled when the connection is leased or closed.
        var idleTimers: [ConnectionID: Scheduled<Void>] = [:]
    }

    private enum Waiter {
        /// The ID is handed out but the request has not yet registered its continuation.
        case allocated
        /// Cancelled or timed out before it registered; registration fails at once.
        case abandonedEarly(ConnectionPoolStateMachine.FailureReason)
        case waiting(
            CheckedContinuation<HTTPConnection, any Error>,
            timeout: TimeAmount?,
            timer: Scheduled<Void>?
        )
    }

    private enum LeaseOutcome {
        case leased(HTTPConnection, Waiter?)
        case requeued([Action])
    }

    private struct State {
        var hosts: [PoolKey: HostPool] = [:]
        var waiters: [WaiterID: Waiter] = [:]
        var nextWaiterID = 0
        var isShutDown = false
    }

    private let state = NIOLockedValueBox(State())
    private let factory: ConnectionFactory
    private let eventLoopGroup: any EventLoopGroup
    private let configuration: TransportConfiguration

    init(configuration: TransportConfiguration, eventLoopGroup: any EventLoopGroup) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.factory = ConnectionFactory(configuration: configuration)
    }

    /// Waits for a connection to `key`, in arrival order, until `deadline` or until the calling
    /// Swift task or `cancellation` is cancelled.
    func lease(
        _ key: PoolKey,
        requiresNewConnection: Bool,
        deadline: (at: NIODeadline, timeout: TimeAmount)?,
        cancellation: TransportCancellation
    ) async throws -> HTTPConnection {
        if !requiresNewConnection, let idle = self.leaseIdleConnection(key) {
            return idle
        }
        let waiter = self.state.withLockedValue { state in
            state.nextWaiterID += 1
            state.waiters[state.nextWaiterID] = .allocated
            return state.nextWaiterID
        }
        cancellation.whenCancelled { self.abandon(waiter, key: key, reason: .cancelled) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let timer = deadline.map { deadline in
                    self.eventLoopGroup.any().scheduleTask(deadline: deadline.at) {
                        self.abandon(waiter, key: key, reason: .timedOut)
                    }
                }
                let actions: [Action] = self.state.withLockedValue { state in
                    let earlyFailure: ConnectionPoolStateMachine.FailureReason?
                    switch state.waiters[waiter] {
                    case .abandonedEarly(let reason): earlyFailure = reason
                    default: earlyFailure = state.isShutDown ? .shutdown : nil
                    }
                    if let earlyFailure {
                        state.waiters[waiter] = nil
                        timer?.cancel()
                        continuation.resume(
                            throwing: Self.error(for: earlyFailure, connectError: nil, timeout: deadline?.timeout)
                        )
                        return []
                    }
                    state.waiters[waiter] = .waiting(continuation, timeout: deadline?.timeout, timer: timer)
                    let maximum = self.configuration.maximumConnectionsPerHost
                    return state.hosts[key, default: HostPool(stateMachine: .init(maximumConnections: maximum))]
                        .stateMachine.waiterArrived(waiter, requiresNewConnection: requiresNewConnection)
                }
                self.perform(actions, key: key)
            }
        } onCancel: {
            self.abandon(waiter, key: key, reason: .cancelled)
        }
    }

    /// The fast path of ``lease(_:requiresNewConnection:deadline:cancellation:)``: an idle connection taken
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
            state.hosts[key]?.idleTimers.removeValue(forKey: id)?.cancel()
            return connection
        }
    }

    /// Fails queued requests, closes every connection and returns when all are closed.
    func shutdown() async {
        let (actions, connections) = self.state.withLockedValue { state in
            state.isShutDown = true
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

    private func abandon(_ waiter: WaiterID, key: PoolKey, reason: ConnectionPoolStateMachine.FailureReason) {
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
            state.hosts[key]?.idleTimers.removeValue(forKey: connection)?.cancel()
            return state.hosts[key]?.stateMachine.connectionClosed(connection) ?? []
        }
        self.perform(actions, key: key)
    }

    private func idleTimeoutFired(_ connection: ConnectionID, key: PoolKey, generation: Int) {
        let actions = self.state.withLockedValue { state in
            state.hosts[key]?.stateMachine.idleTimeoutFired(connection, generation: generation) ?? []
        }
        self.perform(actions, key: key)
    }

    // MARK: Effects

    private func perform(_ actions: [Action], key: PoolKey, connectError: (any Error)? = nil) {
        for action in actions {
            switch action {
            case .createConnection(let id):
                self.createConnection(id, key: key)
            case .lease(let id, let waiter):
                let outcome: LeaseOutcome = self.state.withLockedValue { state in
                    guard let connection = state.hosts[key]?.connections[id] else {
                        // The connection closed between the decision and now: queue the waiter again.
                        return .requeued(state.hosts[key]?.stateMachine.waiterArrived(waiter) ?? [])
                    }
                    state.hosts[key]?.idleTimers.removeValue(forKey: id)?.cancel()
                    return .leased(connection, state.waiters.removeValue(forKey: waiter))
                }
                switch outcome {
                case .requeued(let actions):
                    self.perform(actions, key: key)
                case .leased(let connection, .waiting(let continuation, _, let timer)):
                    timer?.cancel()
                    continuation.resume(returning: connection)
                case .leased:
                    continue
                }
            case .scheduleIdleTimeout(let id, let generation):
                self.state.withLockedValue { state in
                    guard let connection = state.hosts[key]?.connections[id] else { return }
                    let timer = connection.eventLoop.scheduleTask(in: self.configuration.idleConnectionTimeout) {
                        [weak self] in
                        guard let self else { return }
                        self.idleTimeoutFired(id, key: key, generation: generation)
                    }
                    state.hosts[key]?.idleTimers.updateValue(timer, forKey: id)?.cancel()
                }
            case .closeConnection(let id):
                let connection = self.state.withLockedValue { state in
                    state.hosts[key]?.idleTimers.removeValue(forKey: id)?.cancel()
                    return state.hosts[key]?.connections.removeValue(forKey: id)
                }
                connection?.close()
            case .failWaiter(let waiter, let reason):
                let waiting = self.state.withLockedValue { $0.waiters.removeValue(forKey: waiter) }
                guard case .waiting(let continuation, let timeout, let timer) = waiting else { continue }
                timer?.cancel()
                continuation.resume(throwing: Self.error(for: reason, connectError: connectError, timeout: timeout))
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

    private static func error(
        for reason: ConnectionPoolStateMachine.FailureReason,
        connectError: (any Error)?,
        timeout: TimeAmount?
    ) -> TransportError {
        switch reason {
        case .connectFailed:
            return (connectError as? TransportError) ?? .connectionClosedBeforeResponse
        case .cancelled:
            return .cancelled
        case .timedOut:
            return .requestTimeout(timeout: timeout ?? .zero)
        case .shutdown:
            return .shutdown
        }
    }
}
