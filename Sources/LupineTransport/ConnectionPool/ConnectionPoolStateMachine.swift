import NIOCore

/// The numbers that name a pool's connections and waiting requests, unique within one pool.
typealias PoolConnectionID = Int
typealias PoolWaiterID = Int

/// The whole state of a ``ConnectionPool``, kept free of sockets, locks and clocks, so every rule
/// and every race between events is a test with plain values. The pool feeds it one event at a
/// time under its lock (the time of day included) and performs the actions it returns.
///
/// It holds every key's connections and queue, every waiting request with how to deliver to it,
/// the deadlines of waiting requests and idle connections, and when the pool's one timer is due.
/// `Connection` and `Delivery` are what the pool hands over (an open connection and how to start
/// a request on it); tests use plain values.
///
/// Rules, per key:
/// - at most `maximumConnections` connections, connecting or open;
/// - an open connection carries at most `capacity` requests at once (1 for HTTP/1.1) and is handed
///   out before a new one is made, the lowest ID first;
/// - waiting requests are served in arrival order, except that retries after a stale connection
///   go first, in their own order (each arrived before everything queued behind it);
/// - a retry is only ever given a connection that has carried no request: a used connection
///   goes to the first ordinary waiter when connections on their way cover the retries ahead of
///   it, and is otherwise closed and replaced; an idle used connection is closed when a retry
///   arrives (the server has likely closed it too);
/// - an open connection carrying nothing is closed `idleTimeout` after it became idle, unless it
///   carried a request in between;
/// - a waiting request fails at its deadline.
struct ConnectionPoolStateMachine<Key: Hashable, Connection, Delivery> {
    /// A request waiting for a connection.
    struct Waiter {
        let key: Key
        let delivery: Delivery
        let deadline: (at: NIODeadline, timeout: TimeAmount)?
        let requiresNewConnection: Bool
    }

    /// One connection: on its way, or open.
    enum ConnectionState {
        case connecting
        /// `carrying` requests of at most `capacity`; `hasCarried` once it has carried one; while
        /// it carries none, `idleUntil` is when it closes.
        case open(Connection, carrying: Int, capacity: Int, hasCarried: Bool, idleUntil: NIODeadline?)
    }

    /// One key's connections and the requests waiting for one, retries first.
    struct Host {
        var connections: [PoolConnectionID: ConnectionState] = [:]
        var queue = CircularBuffer<PoolWaiterID>()
        /// How many waiters at the head of `queue` are retries.
        var retries = 0

        var isEmpty: Bool { self.connections.isEmpty && self.queue.isEmpty }

        var connectingCount: Int {
            self.connections.values.reduce(0) { count, state in
                if case .connecting = state { return count + 1 }
                return count
            }
        }
    }

    /// What the pool does next. `armTimer` is done under the lock (the timer's handle is kept
    /// beside this state); everything else after it is released, in order.
    struct Actions {
        /// Schedule the pool's timer for this instant, replacing the one scheduled.
        var armTimer: NIODeadline?
        var effects: [Effect] = []

        static var none: Actions { Actions() }
    }

    enum Effect {
        /// Open a connection for `key`; report back with `connectionEstablished` or `connectionFailed`.
        case createConnection(PoolConnectionID, Key)
        /// Start the waiter's request on the connection. One it declines (cancelled as it came) is
        /// reported back with `connectionReleased(_:reusable: true, now:)`.
        case deliver(Connection, PoolConnectionID, to: Delivery)
        /// Close the connection.
        case close(Connection)
        /// Fail the waiter's request.
        case fail(Delivery, PoolWaiterFailure, timeout: TimeAmount?)
    }

    let maximumConnections: Int
    let idleTimeout: TimeAmount
    private(set) var hosts: [Key: Host] = [:]
    private(set) var waiters: [PoolWaiterID: Waiter] = [:]
    /// Which key each connection belongs to.
    private var keys: [PoolConnectionID: Key] = [:]
    /// When the pool's timer is due, if it is armed.
    private(set) var timerDue: NIODeadline?
    private(set) var isShutDown = false
    private var nextConnectionID = 0

    init(maximumConnections: Int, idleTimeout: TimeAmount) {
        self.maximumConnections = max(1, maximumConnections)
        self.idleTimeout = idleTimeout
    }

    // MARK: Events

    /// Request `id` (unique, named by the pool) wants a connection to `key`. It is delivered one
    /// at once when one is free, or queued until ``waiterAbandoned(_:reason:)`` or its deadline.
    /// `isCancelled` is whether its caller gave up before it got here: the pool registers the
    /// cancel handler first, which finds no waiter yet, so the request fails here instead.
    mutating func leaseRequested(
        _ id: PoolWaiterID,
        key: Key,
        delivery: Delivery,
        requiresNewConnection: Bool,
        deadline: (at: NIODeadline, timeout: TimeAmount)?,
        isCancelled: Bool
    ) -> Actions {
        guard !self.isShutDown, !isCancelled else {
            return Actions(effects: [.fail(delivery, isCancelled ? .cancelled : .shutdown, timeout: deadline?.timeout)])
        }
        var host = self.hosts.removeValue(forKey: key) ?? Host()
        defer { self.store(host, for: key) }
        var effects: [Effect] = []
        if !requiresNewConnection, let free = Self.freeConnection(in: host), let delivered = Self.lease(free, in: &host, to: delivery) {
            return Actions(effects: [delivered])
        }
        if requiresNewConnection, let (idle, connection) = Self.idleConnection(in: host) {
            host.connections[idle] = nil
            self.keys[idle] = nil
            effects.append(.close(connection))
        }
        self.waiters[id] = Waiter(key: key, delivery: delivery, deadline: deadline, requiresNewConnection: requiresNewConnection)
        if requiresNewConnection {
            host.queue.insert(id, at: host.queue.index(host.queue.startIndex, offsetBy: host.retries))
            host.retries += 1
        } else {
            host.queue.append(id)
        }
        effects += self.createConnections(for: key, in: &host)
        return Actions(armTimer: deadline.flatMap { self.arm(until: $0.at) }, effects: effects)
    }

    /// A waiter gave up (cancelled, or its caller's task was) before it was served; a waiter
    /// already served or failed is left alone.
    mutating func waiterAbandoned(_ id: PoolWaiterID, reason: PoolWaiterFailure) -> Actions {
        guard let waiter = self.dequeue(id) else { return .none }
        return Actions(effects: [.fail(waiter.delivery, reason, timeout: waiter.deadline?.timeout)])
    }

    /// A connection finished connecting and can carry `capacity` requests at once.
    mutating func connectionEstablished(_ id: PoolConnectionID, _ connection: Connection, capacity: Int, now: NIODeadline) -> Actions {
        guard let key = self.keys[id], case .connecting? = self.hosts[key]?.connections[id], var host = self.hosts.removeValue(forKey: key) else {
            return Actions(effects: [.close(connection)])
        }
        defer { self.store(host, for: key) }
        if self.isShutDown {
            host.connections[id] = nil
            self.keys[id] = nil
            return Actions(effects: [.close(connection)])
        }
        host.connections[id] = .open(connection, carrying: 0, capacity: max(1, capacity), hasCarried: false, idleUntil: nil)
        return self.makeAvailable(id, of: key, in: &host, now: now)
    }

    /// A connection could not be made. The longest-waiting request of its key fails with the
    /// error; the others keep waiting for connections still to come.
    mutating func connectionFailed(_ id: PoolConnectionID) -> Actions {
        guard let key = self.keys.removeValue(forKey: id), var host = self.hosts.removeValue(forKey: key) else { return .none }
        defer { self.store(host, for: key) }
        host.connections[id] = nil
        var effects: [Effect] = []
        if let first = host.queue.first, let waiter = self.dequeue(first, in: &host) {
            effects.append(.fail(waiter.delivery, .connectFailed, timeout: waiter.deadline?.timeout))
        }
        return Actions(effects: effects + self.createConnections(for: key, in: &host))
    }

    /// A request on the connection ended; `reusable` when the connection may carry another.
    mutating func connectionReleased(_ id: PoolConnectionID, reusable: Bool, now: NIODeadline) -> Actions {
        guard let key = self.keys[id], case .open(let connection, let carrying, let capacity, let hasCarried, _)? = self.hosts[key]?.connections[id],
            carrying > 0, var host = self.hosts.removeValue(forKey: key)
        else { return .none }
        defer { self.store(host, for: key) }
        guard reusable, !self.isShutDown else {
            host.connections[id] = nil
            self.keys[id] = nil
            return Actions(effects: [.close(connection)] + self.createConnections(for: key, in: &host))
        }
        host.connections[id] = .open(connection, carrying: carrying - 1, capacity: capacity, hasCarried: hasCarried, idleUntil: nil)
        return self.makeAvailable(id, of: key, in: &host, now: now)
    }

    /// An open connection can now carry `capacity` requests at once (an HTTP/2 server changed its
    /// stream limit). Requests it already carries beyond a lowered limit go on; waiters are
    /// served up to a raised one.
    mutating func connectionCapacityChanged(_ id: PoolConnectionID, capacity: Int, now: NIODeadline) -> Actions {
        guard let key = self.keys[id], case .open(let connection, let carrying, _, let hasCarried, let idleUntil)? = self.hosts[key]?.connections[id],
            var host = self.hosts.removeValue(forKey: key)
        else { return .none }
        defer { self.store(host, for: key) }
        host.connections[id] = .open(connection, carrying: carrying, capacity: max(1, capacity), hasCarried: hasCarried, idleUntil: idleUntil)
        guard carrying < capacity, !host.queue.isEmpty else { return .none }
        return self.makeAvailable(id, of: key, in: &host, now: now)
    }

    /// The server will take no new request on the connection (an HTTP/2 GOAWAY): the pool forgets
    /// it, and the connection closes itself once the requests it carries end. Waiters get other
    /// connections.
    mutating func connectionGoingAway(_ id: PoolConnectionID) -> Actions {
        self.connectionClosed(id)
    }

    /// A connection was closed (by the server, or after an error).
    mutating func connectionClosed(_ id: PoolConnectionID) -> Actions {
        guard let key = self.keys.removeValue(forKey: id), var host = self.hosts.removeValue(forKey: key) else { return .none }
        defer { self.store(host, for: key) }
        host.connections[id] = nil
        return Actions(effects: self.createConnections(for: key, in: &host))
    }

    /// The pool's timer fired: waiters past their deadline fail, connections idle past theirs
    /// close, and the timer is armed again for the earliest deadline left.
    mutating func timerFired(now: NIODeadline) -> Actions {
        self.timerDue = nil
        var effects: [Effect] = []
        var next: NIODeadline?
        for (id, waiter) in self.waiters.sorted(by: { $0.key < $1.key }) {
            guard let deadline = waiter.deadline else { continue }
            if deadline.at <= now {
                _ = self.dequeue(id)
                effects.append(.fail(waiter.delivery, .timedOut, timeout: deadline.timeout))
            } else {
                next = min(next ?? deadline.at, deadline.at)
            }
        }
        for key in Array(self.hosts.keys) {
            guard var host = self.hosts.removeValue(forKey: key) else { continue }
            for (id, state) in host.connections.sorted(by: { $0.key < $1.key }) {
                guard case .open(let connection, 0, _, _, let idleUntil?) = state else { continue }
                if idleUntil <= now {
                    host.connections[id] = nil
                    self.keys[id] = nil
                    effects.append(.close(connection))
                } else {
                    next = min(next ?? idleUntil, idleUntil)
                }
            }
            self.store(host, for: key)
        }
        guard let next, !self.isShutDown else { return Actions(effects: effects) }
        return Actions(armTimer: self.arm(until: next), effects: effects)
    }

    /// The pool shuts down: waiters fail and idle connections close; the pool closes the others.
    mutating func shutdown() -> Actions {
        self.isShutDown = true
        var effects: [Effect] = []
        for id in self.waiters.keys.sorted() {
            if let waiter = self.dequeue(id) {
                effects.append(.fail(waiter.delivery, .shutdown, timeout: waiter.deadline?.timeout))
            }
        }
        for key in Array(self.hosts.keys) {
            guard var host = self.hosts.removeValue(forKey: key) else { continue }
            while let (id, connection) = Self.idleConnection(in: host) {
                host.connections[id] = nil
                self.keys[id] = nil
                effects.append(.close(connection))
            }
            self.store(host, for: key)
        }
        self.timerDue = nil
        return Actions(effects: effects)
    }

    /// Every open connection, for the pool to close and wait for as it shuts down.
    var openConnections: [Connection] {
        self.hosts.values.flatMap { host in
            host.connections.values.compactMap { state in
                if case .open(let connection, _, _, _, _) = state { return connection }
                return nil
            }
        }
    }

    // MARK: Rules

    /// The open connection with room for one more request, the lowest ID first.
    private static func freeConnection(in host: Host) -> PoolConnectionID? {
        var lowest: PoolConnectionID?
        for (id, state) in host.connections {
            guard case .open(_, let carrying, let capacity, _, _) = state, carrying < capacity else { continue }
            if id < (lowest ?? .max) {
                lowest = id
            }
        }
        return lowest
    }

    /// The open connection carrying nothing with the lowest ID.
    private static func idleConnection(in host: Host) -> (PoolConnectionID, Connection)? {
        var lowest: (PoolConnectionID, Connection)?
        for (id, state) in host.connections {
            guard case .open(let connection, 0, _, _, _) = state, id < (lowest?.0 ?? .max) else { continue }
            lowest = (id, connection)
        }
        return lowest
    }

    /// Takes one more request on the open connection `id` and hands it to `delivery`; `nil`
    /// when `id` is not open (not reached: callers pick an open one).
    private static func lease(_ id: PoolConnectionID, in host: inout Host, to delivery: Delivery) -> Effect? {
        guard case .open(let connection, let carrying, let capacity, _, _) = host.connections[id] else { return nil }
        host.connections[id] = .open(connection, carrying: carrying + 1, capacity: capacity, hasCarried: true, idleUntil: nil)
        return .deliver(connection, id, to: delivery)
    }

    /// Gives the open connection `id` to the waiters it has room for, or parks it when it
    /// carries nothing (see the rule on retries above).
    private mutating func makeAvailable(_ id: PoolConnectionID, of key: Key, in host: inout Host, now: NIODeadline) -> Actions {
        var effects: [Effect] = []
        while case .open(let connection, let carrying, let capacity, let hasCarried, _) = host.connections[id], carrying < capacity,
            let first = host.queue.first
        {
            var next = first
            if hasCarried, self.waiters[first]?.requiresNewConnection == true {
                // A used connection with streams in flight takes no new one while retries wait
                // for connections nobody is making: it drains, then is replaced for them.
                guard host.queue.count > host.retries, host.connectingCount >= host.retries else {
                    guard carrying == 0 else { break }
                    host.connections[id] = nil
                    self.keys[id] = nil
                    return Actions(effects: effects + [.close(connection)] + self.createConnections(for: key, in: &host))
                }
                next = host.queue[host.queue.index(host.queue.startIndex, offsetBy: host.retries)]
            }
            guard let waiter = self.dequeue(next, in: &host), let delivered = Self.lease(id, in: &host, to: waiter.delivery) else { break }
            effects.append(delivered)
        }
        guard case .open(let connection, 0, let capacity, let hasCarried, _) = host.connections[id] else {
            return Actions(effects: effects)
        }
        let idleUntil = now + self.idleTimeout
        host.connections[id] = .open(connection, carrying: 0, capacity: capacity, hasCarried: hasCarried, idleUntil: idleUntil)
        return Actions(armTimer: self.arm(until: idleUntil), effects: effects)
    }

    /// Opens connections while more requests wait than connections are being made, up to the limit.
    private mutating func createConnections(for key: Key, in host: inout Host) -> [Effect] {
        var effects: [Effect] = []
        var connecting = host.connectingCount
        while host.queue.count > connecting, host.connections.count < self.maximumConnections, !self.isShutDown {
            let id = self.nextConnectionID
            self.nextConnectionID += 1
            host.connections[id] = .connecting
            self.keys[id] = key
            connecting += 1
            effects.append(.createConnection(id, key))
        }
        return effects
    }

    /// The instant to arm the timer for, when `due` comes before the one it is armed for.
    private mutating func arm(until due: NIODeadline) -> NIODeadline? {
        if let armed = self.timerDue, armed <= due {
            return nil
        }
        self.timerDue = due
        return due
    }

    /// Forgets waiter `id`, wherever it waits.
    private mutating func dequeue(_ id: PoolWaiterID) -> Waiter? {
        guard let key = self.waiters[id]?.key, var host = self.hosts.removeValue(forKey: key) else { return nil }
        defer { self.store(host, for: key) }
        return self.dequeue(id, in: &host)
    }

    private mutating func dequeue(_ id: PoolWaiterID, in host: inout Host) -> Waiter? {
        guard let index = host.queue.firstIndex(of: id), let waiter = self.waiters.removeValue(forKey: id) else { return nil }
        host.queue.remove(at: index)
        if waiter.requiresNewConnection {
            host.retries -= 1
        }
        return waiter
    }

    /// Keeps `host` under `key`, or forgets the key when it holds nothing.
    private mutating func store(_ host: Host, for key: Key) {
        self.hosts[key] = host.isEmpty ? nil : host
    }
}

/// Why a waiting request is failed.
enum PoolWaiterFailure: Equatable {
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

extension ConnectionPoolStateMachine: Sendable where Key: Sendable, Connection: Sendable, Delivery: Sendable {}
extension ConnectionPoolStateMachine.Waiter: Sendable where Key: Sendable, Connection: Sendable, Delivery: Sendable {}
extension ConnectionPoolStateMachine.ConnectionState: Sendable where Key: Sendable, Connection: Sendable, Delivery: Sendable {}
extension ConnectionPoolStateMachine.Host: Sendable where Key: Sendable, Connection: Sendable, Delivery: Sendable {}
