import NIOCore
import Testing

@testable import Lupine
@testable import LupineTransport

/// The pool's state machine driven by value: connections are numbered by their IDs and requests
/// by labels, so every rule and every race between two events is a sequence of calls.
struct PoolModel {
    typealias Machine = ConnectionPoolStateMachine<String, Int, Int>
    typealias Effect = Machine.Effect

    var machine: Machine
    /// When the model's timer is armed for, as the pool would schedule it.
    private(set) var armed: NIODeadline?
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    init(maximumConnections: Int, idleTimeout: TimeAmount = .seconds(60)) {
        self.machine = Machine(maximumConnections: maximumConnections, idleTimeout: idleTimeout)
    }

    private mutating func take(_ actions: Machine.Actions) -> [Effect] {
        if let due = actions.armTimer {
            self.armed = due
        }
        return actions.effects
    }

    /// Request `label` (its waiter ID and what it is delivered as) arrives.
    mutating func arrive(_ label: Int, key: String = "a", retry: Bool = false, timeout: TimeAmount? = nil, cancelled: Bool = false) -> [Effect] {
        let deadline = timeout.map { (Self.start + $0, $0) }
        return self.take(
            self.machine.leaseRequested(label, key: key, delivery: label, requiresNewConnection: retry, deadline: deadline, isCancelled: cancelled)
        )
    }

    mutating func abandon(_ label: Int, _ reason: PoolWaiterFailure = .cancelled) -> [Effect] {
        self.take(self.machine.waiterAbandoned(label, reason: reason))
    }

    mutating func established(_ id: Int, capacity: Int = 1, at offset: TimeAmount = .zero) -> [Effect] {
        self.take(self.machine.connectionEstablished(id, id, capacity: capacity, now: Self.start + offset))
    }

    mutating func failed(_ id: Int) -> [Effect] {
        self.take(self.machine.connectionFailed(id))
    }

    mutating func released(_ id: Int, reusable: Bool = true, at offset: TimeAmount = .zero) -> [Effect] {
        self.take(self.machine.connectionReleased(id, reusable: reusable, now: Self.start + offset))
    }

    mutating func closed(_ id: Int) -> [Effect] {
        self.take(self.machine.connectionClosed(id))
    }

    mutating func capacityChanged(_ id: Int, to capacity: Int) -> [Effect] {
        self.take(self.machine.connectionCapacityChanged(id, capacity: capacity, now: Self.start))
    }

    mutating func goingAway(_ id: Int) -> [Effect] {
        self.take(self.machine.connectionGoingAway(id))
    }

    /// The timer fires at `offset` after the start.
    mutating func timer(at offset: TimeAmount) -> [Effect] {
        self.armed = nil
        return self.take(self.machine.timerFired(now: Self.start + offset))
    }

    mutating func shutdown() -> [Effect] {
        self.take(self.machine.shutdown())
    }

    /// A pool whose connection 0 carries request 1.
    static func carryingRequest1(maximumConnections: Int) -> PoolModel {
        var pool = PoolModel(maximumConnections: maximumConnections)
        _ = pool.arrive(1)
        _ = pool.established(0)
        return pool
    }

    var isEmpty: Bool { self.machine.hosts.isEmpty && self.machine.waiters.isEmpty }

    /// How many requests connection `id` carries, or `nil` when it is not open.
    func carrying(_ id: Int) -> Int? {
        for host in self.machine.hosts.values {
            if case .open(_, let carrying, _, _, _)? = host.connections[id] { return carrying }
        }
        return nil
    }
}

extension ConnectionPoolStateMachine.Effect: Equatable where Connection: Equatable, Delivery: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.createConnection(let a, let k), .createConnection(let b, let l)): a == b && k == l
        case (.deliver(let c, let a, let d), .deliver(let e, let b, let f)): c == e && a == b && d == f
        case (.close(let a), .close(let b)): a == b
        case (.fail(let d, let r, let t), .fail(let e, let s, let u)): d == e && r == s && t == u
        default: false
        }
    }
}

/// The pool's rules, exercised as pure state transitions without sockets.
@Suite struct ConnectionPoolStateMachineTests {
    @Test func firstRequestCreatesAConnectionAndGetsItWhenEstablished() {
        var pool = PoolModel(maximumConnections: 6)
        #expect(pool.arrive(1) == [.createConnection(0, "a")])
        #expect(pool.established(0) == [.deliver(0, 0, to: 1)])
        #expect(pool.carrying(0) == 1)
    }

    @Test func releasedConnectionIsParkedThenReusedAtOnce() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 6)
        #expect(pool.released(0) == [])
        #expect(pool.armed == PoolModel.start + .seconds(60))
        #expect(pool.arrive(2) == [.deliver(0, 0, to: 2)])
        // The timer armed for the earlier idle period finds the connection busy.
        #expect(pool.timer(at: .seconds(61)) == [])
        #expect(pool.carrying(0) == 1)
    }

    @Test func idleTimerClosesAnUnusedConnection() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 6)
        _ = pool.released(0, at: .seconds(1))
        #expect(pool.timer(at: .seconds(60)) == [])
        #expect(pool.armed == PoolModel.start + .seconds(61))
        #expect(pool.timer(at: .seconds(61)) == [.close(0)])
        #expect(pool.isEmpty)
    }

    /// A connection used again and parked again later is timed from its latest idleness, not
    /// from the first (what the old pool's generations were for).
    @Test func aConnectionParkedAgainIsTimedFromItsLatestIdleness() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 6)
        _ = pool.released(0)
        _ = pool.arrive(2)
        _ = pool.released(0, at: .seconds(30))
        #expect(pool.timer(at: .seconds(60)) == [])
        #expect(pool.armed == PoolModel.start + .seconds(90))
        #expect(pool.timer(at: .seconds(90)) == [.close(0)])
    }

    @Test func neverOpensMoreThanTheLimitAndServesWaitersInOrder() {
        var pool = PoolModel(maximumConnections: 2)
        #expect(pool.arrive(1) == [.createConnection(0, "a")])
        #expect(pool.arrive(2) == [.createConnection(1, "a")])
        #expect(pool.arrive(3) == [])
        #expect(pool.arrive(4) == [])
        // Whichever connection comes up first serves the longest waiter.
        #expect(pool.established(1) == [.deliver(1, 1, to: 1)])
        #expect(pool.established(0) == [.deliver(0, 0, to: 2)])
        #expect(pool.released(0) == [.deliver(0, 0, to: 3)])
        #expect(pool.released(1) == [.deliver(1, 1, to: 4)])
        #expect(pool.machine.waiters.isEmpty)
    }

    @Test func keysHaveTheirOwnLimitsAndQueues() {
        var pool = PoolModel(maximumConnections: 1)
        #expect(pool.arrive(1, key: "a") == [.createConnection(0, "a")])
        #expect(pool.arrive(2, key: "b") == [.createConnection(1, "b")])
        #expect(pool.arrive(3, key: "a") == [])
        #expect(pool.established(1) == [.deliver(1, 1, to: 2)])
        #expect(pool.released(1) == [])
        #expect(pool.established(0) == [.deliver(0, 0, to: 1)])
        #expect(pool.released(0) == [.deliver(0, 0, to: 3)])
    }

    @Test func nonReusableReleaseClosesAndReplacesForWaiters() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 1)
        #expect(pool.arrive(2) == [])
        #expect(pool.released(0, reusable: false) == [.close(0), .createConnection(1, "a")])
        #expect(pool.established(1) == [.deliver(1, 1, to: 2)])
    }

    @Test func failedConnectFailsTheOldestWaiterAndRetriesForTheRest() {
        var pool = PoolModel(maximumConnections: 1)
        _ = pool.arrive(1)
        _ = pool.arrive(2)
        #expect(pool.failed(0) == [.fail(1, .connectFailed, timeout: nil), .createConnection(1, "a")])
        #expect(pool.failed(1) == [.fail(2, .connectFailed, timeout: nil)])
        #expect(pool.isEmpty)
    }

    @Test func serverClosingAnIdleConnectionFreesItsSlot() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 1)
        _ = pool.released(0)
        #expect(pool.closed(0) == [])
        #expect(pool.arrive(2) == [.createConnection(1, "a")])
        // A late release of the closed connection changes nothing.
        #expect(pool.released(0) == [])
    }

    @Test func abandonedWaiterLeavesTheQueueOnce() {
        var pool = PoolModel(maximumConnections: 1)
        _ = pool.arrive(1)
        _ = pool.arrive(2)
        #expect(pool.abandon(2) == [.fail(2, .cancelled, timeout: nil)])
        #expect(pool.abandon(2) == [])
        #expect(pool.established(0) == [.deliver(0, 0, to: 1)])
        #expect(pool.released(0) == [])
    }

    /// The race the old pool kept outside its state machine: a waiter cancelled in the same
    /// instant it is served. Whichever event comes first wins; the other changes nothing.
    @Test func aWaiterServedThenAbandonedKeepsItsConnection() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 1)
        _ = pool.arrive(2)
        #expect(pool.released(0) == [.deliver(0, 0, to: 2)])
        #expect(pool.abandon(2) == [])
        // Its request, cancelled as it came, declines the connection: the pool gets it back.
        #expect(pool.released(0) == [])
        #expect(pool.carrying(0) == 0)
    }

    /// The caller gave up before its request reached the pool (its cancel handler, registered
    /// first, found no waiter): the request fails as it arrives, even with a connection free.
    @Test func aWaiterCancelledBeforeItArrivesFailsAtOnce() {
        var pool = PoolModel(maximumConnections: 1)
        #expect(pool.abandon(1) == [])
        #expect(pool.arrive(1, cancelled: true) == [.fail(1, .cancelled, timeout: nil)])
        _ = pool.arrive(2)
        _ = pool.established(0)
        _ = pool.released(0)
        #expect(pool.arrive(3, timeout: .seconds(1), cancelled: true) == [.fail(3, .cancelled, timeout: .seconds(1))])
        #expect(pool.carrying(0) == 0)
    }

    @Test func aWaiterAbandonedThenServedIsNeverDelivered() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 1)
        _ = pool.arrive(2)
        #expect(pool.abandon(2) == [.fail(2, .cancelled, timeout: nil)])
        #expect(pool.released(0) == [])
    }

    /// A waiter past its deadline fails with its timeout; one whose deadline has not come stays,
    /// and the timer is armed for it.
    @Test func theTimerFailsOnlyWaitersPastTheirDeadline() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 1)
        #expect(pool.arrive(2, timeout: .seconds(5)) == [])
        #expect(pool.armed == PoolModel.start + .seconds(5))
        #expect(pool.arrive(3, timeout: .seconds(9)) == [])
        #expect(pool.armed == PoolModel.start + .seconds(5))
        #expect(pool.timer(at: .seconds(5)) == [.fail(2, .timedOut, timeout: .seconds(5))])
        #expect(pool.armed == PoolModel.start + .seconds(9))
        #expect(pool.released(0) == [.deliver(0, 0, to: 3)])
        #expect(pool.timer(at: .seconds(9)) == [])
        #expect(pool.armed == nil)
    }

    /// An earlier deadline re-arms the timer; a later one leaves it.
    @Test func anEarlierDeadlineMovesTheTimer() {
        var pool = PoolModel(maximumConnections: 1)
        _ = pool.arrive(1, timeout: .seconds(30))
        #expect(pool.armed == PoolModel.start + .seconds(30))
        _ = pool.arrive(2, timeout: .seconds(10))
        #expect(pool.armed == PoolModel.start + .seconds(10))
    }

    /// A waiter whose deadline passes while its connection is on its way fails; the connection,
    /// when it comes, is parked.
    @Test func aTimedOutWaitersConnectionIsParked() {
        var pool = PoolModel(maximumConnections: 1)
        _ = pool.arrive(1, timeout: .seconds(1))
        #expect(pool.timer(at: .seconds(1)) == [.fail(1, .timedOut, timeout: .seconds(1))])
        #expect(pool.established(0, at: .seconds(2)) == [])
        #expect(pool.carrying(0) == 0)
    }

    @Test func shutdownClosesIdleConnectionsAndRefusesLaterRequests() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 1)
        _ = pool.released(0)
        #expect(pool.shutdown() == [.close(0)])
        #expect(pool.arrive(2) == [.fail(2, .shutdown, timeout: nil)])
        #expect(pool.isEmpty)
        #expect(pool.timer(at: .seconds(60)) == [])
        #expect(pool.armed == nil)
    }

    @Test func shutdownFailsWaitersAndClosesConnectionsAsTheyComeBack() {
        var pool = PoolModel(maximumConnections: 2)
        _ = pool.arrive(1)
        _ = pool.arrive(2)
        _ = pool.arrive(3)
        #expect(pool.established(0) == [.deliver(0, 0, to: 1)])
        #expect(pool.shutdown() == [.fail(2, .shutdown, timeout: nil), .fail(3, .shutdown, timeout: nil)])
        #expect(pool.machine.openConnections == [0])
        #expect(pool.established(1) == [.close(1)])
        #expect(pool.released(0) == [.close(0)])
        #expect(pool.isEmpty)
    }

    /// A connection that carries several requests at once (HTTP/2 streams): every waiter it has
    /// room for is served at once, and the rest when a stream ends.
    @Test func aConnectionWithRoomForSeveralServesThatMany() {
        var pool = PoolModel(maximumConnections: 1)
        for label in 1...4 {
            _ = pool.arrive(label)
        }
        #expect(pool.established(0, capacity: 3) == [.deliver(0, 0, to: 1), .deliver(0, 0, to: 2), .deliver(0, 0, to: 3)])
        #expect(pool.arrive(5) == [])
        #expect(pool.released(0) == [.deliver(0, 0, to: 4)])
        #expect(pool.released(0) == [.deliver(0, 0, to: 5)])
        #expect(pool.released(0) == [])
        #expect(pool.arrive(6) == [.deliver(0, 0, to: 6)])
        #expect(pool.carrying(0) == 3)
    }

    /// An HTTP/2 server that raises its stream limit gets the waiters at once; one that lowers
    /// it keeps the streams in flight and takes new ones only below the new limit.
    @Test func aChangedStreamLimitIsFollowed() {
        var pool = PoolModel(maximumConnections: 1)
        for label in 1...5 {
            _ = pool.arrive(label)
        }
        #expect(pool.established(0, capacity: 2) == [.deliver(0, 0, to: 1), .deliver(0, 0, to: 2)])
        #expect(pool.capacityChanged(0, to: 4) == [.deliver(0, 0, to: 3), .deliver(0, 0, to: 4)])
        #expect(pool.capacityChanged(0, to: 1) == [])
        #expect(pool.released(0) == [])
        #expect(pool.released(0) == [])
        #expect(pool.released(0) == [])
        #expect(pool.released(0) == [.deliver(0, 0, to: 5)])
        #expect(pool.capacityChanged(7, to: 10) == [])
    }

    /// After a GOAWAY the connection takes no new request: the pool forgets it (it closes itself
    /// once its streams end, and their releases change nothing) and opens another for waiters.
    @Test func aConnectionGoingAwayIsReplacedForTheWaiters() {
        var pool = PoolModel(maximumConnections: 1)
        _ = pool.arrive(1)
        _ = pool.established(0, capacity: 100)
        #expect(pool.goingAway(0) == [])
        #expect(pool.machine.openConnections == [])
        #expect(pool.arrive(2) == [.createConnection(1, "a")])
        #expect(pool.released(0) == [])
        #expect(pool.closed(0) == [])
        #expect(pool.established(1, capacity: 100) == [.deliver(1, 1, to: 2)])
    }
}

/// A retry after a stale connection is only ever given a connection that has carried nothing.
@Suite struct ConnectionPoolRetryTests {
    @Test func aRetryAfterAStaleConnectionReplacesAnIdleOne() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 1)
        _ = pool.released(0)
        #expect(pool.arrive(2, retry: true) == [.close(0), .createConnection(1, "a")])
    }

    /// A connection made for a waiter that left is parked unused; the server may close it while
    /// it waits, so a retry is not sent on it either.
    @Test func aRetryNeverTakesAParkedConnection() {
        var pool = PoolModel(maximumConnections: 2)
        _ = pool.arrive(1)
        _ = pool.abandon(1)
        #expect(pool.established(0) == [])
        #expect(pool.arrive(2, retry: true) == [.close(0), .createConnection(1, "a")])
        #expect(pool.established(1) == [.deliver(1, 1, to: 2)])
    }

    /// With streams in flight on the only connection the limit allows, retries wait: the
    /// connection takes no new stream for the ordinary waiters behind them, drains, and is
    /// replaced.
    @Test func aRetryIsNotStarvedBehindAMultiplexedConnection() {
        var pool = PoolModel(maximumConnections: 1)
        _ = pool.arrive(1)
        _ = pool.arrive(2)
        _ = pool.established(0, capacity: 2)
        _ = pool.arrive(3, retry: true)
        _ = pool.arrive(4)
        #expect(pool.released(0) == [])
        #expect(pool.released(0) == [.close(0), .createConnection(1, "a")])
        #expect(pool.established(1, capacity: 2) == [.deliver(1, 1, to: 3), .deliver(1, 1, to: 4)])
    }

    @Test func aRetryGoesAheadOfWaitersThatCameAfterItAndGetsAFreshConnection() {
        var pool = PoolModel(maximumConnections: 1)
        #expect(pool.arrive(1) == [.createConnection(0, "a")])
        #expect(pool.established(0) == [.deliver(0, 0, to: 1)])
        // Request 1's connection went stale: it is closed; request 2 queued, then the retry of 1.
        #expect(pool.closed(0) == [])
        #expect(pool.arrive(2) == [.createConnection(1, "a")])
        #expect(pool.arrive(3, retry: true) == [])
        // The connection made for request 2 is fresh: the retry, at the head, takes it.
        #expect(pool.established(1) == [.deliver(1, 1, to: 3)])
        #expect(pool.released(1) == [.deliver(1, 1, to: 2)])
    }

    /// A used connection comes back while a retry's new connection is on its way; the ordinary
    /// waiter behind the retry takes it instead of its being thrown away.
    @Test func aUsedConnectionServesTheWaiterBehindARetryWhoseConnectionIsComing() {
        var pool = PoolModel(maximumConnections: 2)
        #expect(pool.arrive(1) == [.createConnection(0, "a")])
        #expect(pool.established(0) == [.deliver(0, 0, to: 1)])
        #expect(pool.arrive(2) == [.createConnection(1, "a")])
        #expect(pool.established(1) == [.deliver(1, 1, to: 2)])
        // Request 2's connection went stale; its retry waits for a new one, then request 3 comes.
        #expect(pool.closed(1) == [])
        #expect(pool.arrive(4, retry: true) == [.createConnection(2, "a")])
        #expect(pool.arrive(3) == [])
        #expect(pool.released(0) == [.deliver(0, 0, to: 3)])
        #expect(pool.established(2) == [.deliver(2, 2, to: 4)])
    }

    @Test func retriesAreServedInTheirOwnOrder() {
        var pool = PoolModel(maximumConnections: 1)
        #expect(pool.arrive(1) == [.createConnection(0, "a")])
        #expect(pool.established(0) == [.deliver(0, 0, to: 1)])
        #expect(pool.arrive(2) == [])
        #expect(pool.arrive(3, retry: true) == [])
        #expect(pool.arrive(4, retry: true) == [])
        #expect(pool.released(0) == [.close(0), .createConnection(1, "a")])
        #expect(pool.established(1) == [.deliver(1, 1, to: 3)])
        #expect(pool.released(1, reusable: false) == [.close(1), .createConnection(2, "a")])
        #expect(pool.established(2) == [.deliver(2, 2, to: 4)])
        #expect(pool.released(2) == [.deliver(2, 2, to: 2)])
    }

    @Test func aReleasedConnectionIsReplacedForARetryAtTheHead() {
        var pool = PoolModel(maximumConnections: 1)
        #expect(pool.arrive(1) == [.createConnection(0, "a")])
        #expect(pool.established(0) == [.deliver(0, 0, to: 1)])
        #expect(pool.arrive(2) == [])
        #expect(pool.arrive(3, retry: true) == [])
        // Connection 0 has carried request 1: the retry gets a new one, then request 2 its turn.
        #expect(pool.released(0) == [.close(0), .createConnection(1, "a")])
        #expect(pool.established(1) == [.deliver(1, 1, to: 3)])
        #expect(pool.released(1) == [.deliver(1, 1, to: 2)])
        #expect(pool.released(1) == [])
        #expect(pool.carrying(1) == 0)
    }

    /// A retry abandoned while it waits at the head no longer holds the ordinary waiters back.
    @Test func anAbandonedRetryLeavesTheHead() {
        var pool = PoolModel.carryingRequest1(maximumConnections: 1)
        _ = pool.arrive(2)
        _ = pool.arrive(3, retry: true)
        #expect(pool.abandon(3) == [.fail(3, .cancelled, timeout: nil)])
        #expect(pool.released(0) == [.deliver(0, 0, to: 2)])
    }
}
