import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// Performs what the ``ConnectionPoolStateMachine`` decides: opens and closes connections, runs
/// the pool's one timer (deadlines of waiting requests, idle timeouts), and starts requests on
/// the connections it hands out.
///
/// Every event takes the lock once: the state machine decides, the timer is re-armed under the
/// lock (its handle lives beside the state), and the rest of the actions run after it is
/// released (``modifyStateAndRunActions(connectError:_:)``).
final class ConnectionPool: Sendable {
    /// How a waiting request is started on the connection it is given, where the connection was
    /// freed (its event loop, for a released one), or failed. Returns whether it took the
    /// connection: one declined (its request was cancelled as it came) goes back to the pool.
    typealias Delivery = @Sendable (Result<HTTPConnection, any Error>) -> Bool
    typealias StateMachine = ConnectionPoolStateMachine<PoolKey, HTTPConnection, Delivery>

    struct Locked: Sendable {
        var stateMachine: StateMachine
        /// The pool's one timer, armed for `stateMachine.timerDue`.
        var timer: Scheduled<Void>?
    }

    let state: NIOLockedValueBox<Locked>
    /// The last waiter ID handed out: IDs are made before the lease, without the lock, so the
    /// cancel handler that names one is in place before the request can be delivered.
    private let lastWaiterID = Atomic(0)
    private let factory: ConnectionFactory
    let eventLoopGroup: any EventLoopGroup

    init(configuration: TransportConfiguration, eventLoopGroup: any EventLoopGroup) {
        self.eventLoopGroup = eventLoopGroup
        self.factory = ConnectionFactory(configuration: configuration)
        self.state = NIOLockedValueBox(
            Locked(
                stateMachine: StateMachine(
                    maximumConnections: configuration.maximumConnectionsPerHost,
                    idleTimeout: configuration.idleConnectionTimeout
                )
            )
        )
    }

    /// Asks for a connection to `key`, in arrival order, until `deadline` or until `cancellation`
    /// is cancelled, and hands it (or why there is none) to `deliver`. An idle connection is
    /// handed over at once, on the calling thread; a request that has to wait gets its connection
    /// from whoever freed it, and starts there: the caller is never resumed just to hop back to
    /// the loop. Returns the waiter to ``abandon(_:reason:)`` if the caller gives up (a waiter
    /// already served is left alone).
    @discardableResult
    func lease(
        _ key: PoolKey,
        requiresNewConnection: Bool,
        deadline: (at: NIODeadline, timeout: TimeAmount)?,
        cancellation: TransportCancellation,
        deliver: @escaping Delivery
    ) -> PoolWaiterID {
        let waiter = self.lastWaiterID.wrappingAdd(1, ordering: .relaxed).newValue
        // Before the lease: a request started on a connection replaces this handler with its
        // own (a cancel on the wire), so it must not come after.
        cancellation.whenCancelled { self.abandon(waiter, reason: .cancelled) }
        self.modifyStateAndRunActions { stateMachine in
            stateMachine.leaseRequested(
                waiter,
                key: key,
                delivery: deliver,
                requiresNewConnection: requiresNewConnection,
                deadline: deadline,
                isCancelled: cancellation.isCancelled
            )
        }
        return waiter
    }

    /// Fails queued requests, closes every connection and returns when all are closed.
    func shutdown() async {
        let connections = self.modifyStateAndRunActions { stateMachine in
            // Read first: the idle ones the machine closes now are waited for too.
            let open = stateMachine.openConnections
            return (open, stateMachine.shutdown())
        }
        // The machine no longer arms the timer; one already armed is cancelled here.
        self.state.withLockedValue { locked in
            locked.timer?.cancel()
            locked.timer = nil
        }
        for connection in connections {
            connection.close()
            try? await connection.channel.closeFuture.get()
        }
    }

    // MARK: Events

    /// The waiter gave up before it was served: it fails with `reason`.
    func abandon(_ waiter: PoolWaiterID, reason: PoolWaiterFailure) {
        self.modifyStateAndRunActions { $0.waiterAbandoned(waiter, reason: reason) }
    }

    private func release(_ connection: PoolConnectionID, reusable: Bool) {
        self.modifyStateAndRunActions { $0.connectionReleased(connection, reusable: reusable, now: .now()) }
    }

    private func timerFired() {
        self.modifyStateAndRunActions { $0.timerFired(now: .now()) }
    }

    // MARK: Effects

    /// Feeds one event to the state machine under the lock, re-arms the timer there if it says
    /// so, and performs the rest of what it decided once the lock is released.
    private func modifyStateAndRunActions(
        connectError: (any Error)? = nil,
        _ event: (inout StateMachine) -> StateMachine.Actions
    ) {
        self.modifyStateAndRunActions(connectError: connectError) { ((), event(&$0)) }
    }

    /// ``modifyStateAndRunActions(connectError:_:)`` for an event that also answers with a value.
    private func modifyStateAndRunActions<Value>(
        connectError: (any Error)? = nil,
        _ event: (inout StateMachine) -> (Value, StateMachine.Actions)
    ) -> Value {
        let (value, effects) = self.state.withLockedValue { locked in
            let (value, actions) = event(&locked.stateMachine)
            if let due = actions.armTimer {
                locked.timer?.cancel()
                locked.timer = self.eventLoopGroup.any().scheduleTask(deadline: due) { [weak self] () -> Void in
                    self?.timerFired()
                }
            }
            return (value, actions.effects)
        }
        self.run(effects, connectError: connectError)
        return value
    }

    private func run(_ effects: [StateMachine.Effect], connectError: (any Error)?) {
        for effect in effects {
            switch effect {
            case .createConnection(let id, let key):
                self.createConnection(id, key: key)
            case .deliver(let connection, let id, let deliver):
                if !deliver(.success(connection)) {
                    self.release(id, reusable: true)
                }
            case .close(let connection):
                connection.close()
            case .fail(let deliver, let reason, let timeout):
                _ = deliver(.failure(reason.transportError(connectError: connectError, timeout: timeout)))
            }
        }
    }

    private func createConnection(_ id: PoolConnectionID, key: PoolKey) {
        let events = ConnectionFactory.Events(
            requestFinished: { [weak self] reusable in self?.release(id, reusable: reusable) },
            capacityChanged: { [weak self] capacity in
                self?.modifyStateAndRunActions { $0.connectionCapacityChanged(id, capacity: capacity, now: .now()) }
            },
            goingAway: { [weak self] in self?.modifyStateAndRunActions { $0.connectionGoingAway(id) } }
        )
        let connecting = self.factory.makeConnection(id: id, key: key, eventLoop: self.eventLoopGroup.next(), events: events)
        connecting.whenComplete { result in
            switch result {
            case .success(let (connection, capacity)):
                connection.channel.closeFuture.whenComplete { [weak self] _ in
                    self?.modifyStateAndRunActions { $0.connectionClosed(id) }
                }
                self.modifyStateAndRunActions { $0.connectionEstablished(id, connection, capacity: capacity, now: .now()) }
            case .failure(let error):
                self.modifyStateAndRunActions(connectError: error) { $0.connectionFailed(id) }
            }
        }
    }
}
