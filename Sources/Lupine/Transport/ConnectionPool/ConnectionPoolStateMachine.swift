import NIOCore

/// The pool's decisions for one ``PoolKey``, kept free of sockets and clocks so every rule can be
/// tested with plain values. The ``ConnectionPool`` feeds it events and performs the actions it returns.
///
/// Rules: at most `maximumConnections` connections (connecting, idle or leased); waiting requests
/// are served in arrival order, except that retries after a stale connection go first, in their
/// own order (each arrived before everything queued behind it); an idle connection is handed out
/// before a new one is made; an idle connection is closed after its idle timer fires unless it
/// was used in between; a request that requires a new connection (such a retry) is only ever
/// given a fresh one, and a used connection goes to the first waiter that does not.
struct ConnectionPoolStateMachine {
    typealias ConnectionID = Int
    typealias WaiterID = Int

    enum ConnectionState: Equatable {
        case connecting
        /// Parked; `generation` tells a current idle timer from a stale one.
        case idle(generation: Int)
        case leased
    }

    /// Why a waiter is failed.
    enum FailureReason: Equatable {
        case connectFailed
        case cancelled
        case timedOut
        case shutdown

        /// The error the waiting request fails with: the connection attempt's own error, or the
        /// waiter's `timeout` for a deadline that passed.
        func transportError(connectError: (any Error)?, timeout: TimeAmount?) -> TransportError {
            switch self {
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

    enum Action: Equatable {
        /// Open a new connection with this ID and report back with `connectionEstablished` or `connectionFailed`.
        case createConnection(ConnectionID)
        /// Give the connection to the waiter.
        case lease(ConnectionID, to: WaiterID)
        /// Start the idle timer for this generation of the connection's idleness.
        case scheduleIdleTimeout(ConnectionID, generation: Int)
        /// Close the connection.
        case closeConnection(ConnectionID)
        /// Fail the waiter.
        case failWaiter(WaiterID, FailureReason)
    }

    let maximumConnections: Int
    private(set) var connections: [ConnectionID: ConnectionState] = [:]
    private(set) var waiters = CircularBuffer<WaiterID>()
    /// The waiters that must be given a connection that has carried no request yet.
    private var waitersRequiringNewConnection: Set<WaiterID> = []
    private(set) var isShutDown = false
    private var nextConnectionID = 0
    private var nextGeneration = 0

    init(maximumConnections: Int) {
        self.maximumConnections = max(1, maximumConnections)
    }

    /// No connections and no waiters remain.
    var isEmpty: Bool { self.connections.isEmpty && self.waiters.isEmpty }

    /// A request arriving now would be handed an idle connection at once.
    var canLeaseImmediately: Bool { !self.isShutDown && self.anyIdleConnection() != nil }

    private var connectingCount: Int {
        var count = 0
        for state in self.connections.values where state == .connecting {
            count += 1
        }
        return count
    }

    /// A request wants a connection. With `requiresNewConnection` (a retry after a stale
    /// connection) it goes to the head of the queue, and an idle connection is closed and
    /// replaced rather than handed out.
    mutating func waiterArrived(_ waiter: WaiterID, requiresNewConnection: Bool = false) -> [Action] {
        if self.isShutDown {
            return [.failWaiter(waiter, .shutdown)]
        }
        var actions: [Action] = []
        if let idle = self.anyIdleConnection() {
            if !requiresNewConnection {
                self.connections[idle] = .leased
                return [.lease(idle, to: waiter)]
            }
            self.connections[idle] = nil
            actions.append(.closeConnection(idle))
        }
        if requiresNewConnection {
            // Retries wait at the head, the first of them first.
            let afterRetries = self.waiters.index(self.waiters.startIndex, offsetBy: self.waitersRequiringNewConnection.count)
            self.waiters.insert(waiter, at: afterRetries)
            self.waitersRequiringNewConnection.insert(waiter)
        } else {
            self.waiters.append(waiter)
        }
        actions += self.createConnectionsForWaiters()
        return actions
    }

    /// A connection finished connecting.
    mutating func connectionEstablished(_ connection: ConnectionID) -> [Action] {
        guard self.connections[connection] == .connecting else { return [.closeConnection(connection)] }
        if self.isShutDown {
            self.connections[connection] = nil
            return [.closeConnection(connection)]
        }
        return self.makeAvailable(connection, isFresh: true)
    }

    /// A connection could not be made. The longest-waiting request fails with the error; the
    /// others keep waiting for connections still to come.
    mutating func connectionFailed(_ connection: ConnectionID) -> [Action] {
        guard self.connections.removeValue(forKey: connection) != nil else { return [] }
        var actions: [Action] = []
        if let waiter = self.waiters.popFirst() {
            self.waitersRequiringNewConnection.remove(waiter)
            actions.append(.failWaiter(waiter, .connectFailed))
        }
        return actions + self.createConnectionsForWaiters()
    }

    /// A leased connection finished its request; `reusable` when it may carry another.
    mutating func connectionReleased(_ connection: ConnectionID, reusable: Bool) -> [Action] {
        guard self.connections[connection] == .leased else { return [] }
        guard reusable, !self.isShutDown else {
            self.connections[connection] = nil
            return [.closeConnection(connection)] + self.createConnectionsForWaiters()
        }
        return self.makeAvailable(connection, isFresh: false)
    }

    /// A connection was closed (by the server, or after an error).
    mutating func connectionClosed(_ connection: ConnectionID) -> [Action] {
        guard self.connections.removeValue(forKey: connection) != nil else { return [] }
        return self.createConnectionsForWaiters()
    }

    /// A connection's idle timer fired.
    mutating func idleTimeoutFired(_ connection: ConnectionID, generation: Int) -> [Action] {
        guard self.connections[connection] == .idle(generation: generation) else { return [] }
        self.connections[connection] = nil
        return [.closeConnection(connection)]
    }

    /// A waiter gave up (cancelled or past its deadline) before it was served.
    mutating func waiterAbandoned(_ waiter: WaiterID, reason: FailureReason) -> [Action] {
        guard let index = self.waiters.firstIndex(of: waiter) else { return [] }
        self.waiters.remove(at: index)
        self.waitersRequiringNewConnection.remove(waiter)
        return [.failWaiter(waiter, reason)]
    }

    /// The pool shuts down: waiters fail, idle connections close, leased ones close when released.
    mutating func shutdown() -> [Action] {
        self.isShutDown = true
        var actions = self.waiters.map { Action.failWaiter($0, .shutdown) }
        self.waiters.removeAll()
        self.waitersRequiringNewConnection.removeAll()
        for (connection, state) in self.connections.sorted(by: { $0.key < $1.key }) {
            if case .idle = state {
                self.connections[connection] = nil
                actions.append(.closeConnection(connection))
            }
        }
        return actions
    }

    /// The idle connection with the lowest ID (a loop: this runs for every request).
    private func anyIdleConnection() -> ConnectionID? {
        var lowest: ConnectionID?
        for (connection, state) in self.connections {
            if case .idle = state, connection < (lowest ?? .max) {
                lowest = connection
            }
        }
        return lowest
    }

    /// Hands `connection` to the longest waiter, or parks it. A connection that has carried a
    /// request is not given to a waiter that requires a new one: it goes to the first ordinary
    /// waiter when connections on their way cover the retries ahead of it, and is otherwise
    /// closed and replaced.
    private mutating func makeAvailable(_ connection: ConnectionID, isFresh: Bool) -> [Action] {
        if let waiter = self.waiters.first {
            if !isFresh && self.waitersRequiringNewConnection.contains(waiter) {
                let retries = self.waitersRequiringNewConnection.count
                if self.connectingCount >= retries, self.waiters.count > retries {
                    let ordinary = self.waiters.remove(at: self.waiters.index(self.waiters.startIndex, offsetBy: retries))
                    self.connections[connection] = .leased
                    return [.lease(connection, to: ordinary)]
                }
                self.connections[connection] = nil
                return [.closeConnection(connection)] + self.createConnectionsForWaiters()
            }
            self.waiters.removeFirst()
            self.waitersRequiringNewConnection.remove(waiter)
            self.connections[connection] = .leased
            return [.lease(connection, to: waiter)]
        }
        self.nextGeneration += 1
        self.connections[connection] = .idle(generation: self.nextGeneration)
        return [.scheduleIdleTimeout(connection, generation: self.nextGeneration)]
    }

    /// Opens connections while more requests wait than connections are being made, up to the limit.
    private mutating func createConnectionsForWaiters() -> [Action] {
        var actions: [Action] = []
        while self.waiters.count > self.connectingCount, self.connections.count < self.maximumConnections {
            let connection = self.nextConnectionID
            self.nextConnectionID += 1
            self.connections[connection] = .connecting
            actions.append(.createConnection(connection))
        }
        return actions
    }
}
