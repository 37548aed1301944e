import NIOCore
import Testing

@testable import Lupine

/// The pool's rules, exercised as pure state transitions without sockets.
@Suite struct ConnectionPoolStateMachineTests {
    @Test func firstRequestCreatesAConnectionAndGetsItWhenEstablished() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 6)
        #expect(pool.waiterArrived(1) == [.createConnection(0)])
        #expect(pool.connectionEstablished(0) == [.lease(0, to: 1)])
        #expect(pool.connections[0] == .leased)
    }

    @Test func releasedConnectionIsParkedThenReused() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 6)
        _ = pool.waiterArrived(1)
        _ = pool.connectionEstablished(0)
        let parked = pool.connectionReleased(0, reusable: true)
        guard case .scheduleIdleTimeout(0, let generation) = parked.first else {
            Issue.record("expected an idle timer, got \(parked)")
            return
        }
        #expect(pool.waiterArrived(2) == [.lease(0, to: 2)])
        // The timer from the earlier idle period is stale now.
        #expect(pool.idleTimeoutFired(0, generation: generation) == [])
        #expect(pool.connections[0] == .leased)
    }

    @Test func idleTimerClosesAnUnusedConnection() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 6)
        _ = pool.waiterArrived(1)
        _ = pool.connectionEstablished(0)
        guard case .scheduleIdleTimeout(0, let generation) = pool.connectionReleased(0, reusable: true).first else {
            Issue.record("expected an idle timer")
            return
        }
        #expect(pool.idleTimeoutFired(0, generation: generation) == [.closeConnection(0)])
        #expect(pool.isEmpty)
    }

    @Test func neverOpensMoreThanTheLimitAndServesWaitersInOrder() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 2)
        #expect(pool.waiterArrived(1) == [.createConnection(0)])
        #expect(pool.waiterArrived(2) == [.createConnection(1)])
        #expect(pool.waiterArrived(3) == [])
        #expect(pool.waiterArrived(4) == [])
        #expect(pool.connections.count == 2)
        // Whichever connection comes up first serves the longest waiter.
        #expect(pool.connectionEstablished(1) == [.lease(1, to: 1)])
        #expect(pool.connectionEstablished(0) == [.lease(0, to: 2)])
        #expect(pool.connectionReleased(0, reusable: true) == [.lease(0, to: 3)])
        #expect(pool.connectionReleased(1, reusable: true) == [.lease(1, to: 4)])
        #expect(Array(pool.waiters).isEmpty)
    }

    @Test func nonReusableReleaseClosesAndReplacesForWaiters() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 1)
        _ = pool.waiterArrived(1)
        _ = pool.connectionEstablished(0)
        #expect(pool.waiterArrived(2) == [])
        #expect(pool.connectionReleased(0, reusable: false) == [.closeConnection(0), .createConnection(1)])
        #expect(pool.connectionEstablished(1) == [.lease(1, to: 2)])
    }

    @Test func failedConnectFailsTheOldestWaiterAndRetriesForTheRest() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 1)
        _ = pool.waiterArrived(1)
        _ = pool.waiterArrived(2)
        #expect(pool.connectionFailed(0) == [.failWaiter(1, .connectFailed), .createConnection(1)])
        #expect(pool.connectionFailed(1) == [.failWaiter(2, .connectFailed)])
        #expect(pool.isEmpty)
    }

    @Test func serverClosingAnIdleConnectionFreesItsSlot() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 1)
        _ = pool.waiterArrived(1)
        _ = pool.connectionEstablished(0)
        _ = pool.connectionReleased(0, reusable: true)
        #expect(pool.connectionClosed(0) == [])
        #expect(pool.waiterArrived(2) == [.createConnection(1)])
        // A late release of the closed connection changes nothing.
        #expect(pool.connectionReleased(0, reusable: true) == [])
    }

    @Test func retryAfterStaleConnectionReplacesAnIdleOne() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 1)
        _ = pool.waiterArrived(1)
        _ = pool.connectionEstablished(0)
        _ = pool.connectionReleased(0, reusable: true)
        #expect(pool.waiterArrived(2, requiresNewConnection: true) == [.closeConnection(0), .createConnection(1)])
    }

    @Test func abandonedWaiterLeavesTheQueue() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 1)
        _ = pool.waiterArrived(1)
        _ = pool.waiterArrived(2)
        #expect(pool.waiterAbandoned(2, reason: .cancelled) == [.failWaiter(2, .cancelled)])
        #expect(pool.waiterAbandoned(2, reason: .cancelled) == [])
        #expect(pool.connectionEstablished(0) == [.lease(0, to: 1)])
        #expect(pool.connectionReleased(0, reusable: true).count == 1)
    }

    @Test func shutdownClosesIdleConnectionsAndRefusesLaterRequests() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 1)
        _ = pool.waiterArrived(1)
        _ = pool.connectionEstablished(0)
        _ = pool.connectionReleased(0, reusable: true)
        #expect(pool.shutdown() == [.closeConnection(0)])
        #expect(pool.waiterArrived(2) == [.failWaiter(2, .shutdown)])
        #expect(pool.isEmpty)
    }

    @Test func shutdownFailsWaitersAndClosesConnectionsAsTheyComeBack() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 2)
        _ = pool.waiterArrived(1)
        _ = pool.waiterArrived(2)
        _ = pool.waiterArrived(3)
        #expect(pool.connectionEstablished(0) == [.lease(0, to: 1)])
        #expect(pool.shutdown() == [.failWaiter(2, .shutdown), .failWaiter(3, .shutdown)])
        #expect(pool.connectionEstablished(1) == [.closeConnection(1)])
        #expect(pool.connectionReleased(0, reusable: true) == [.closeConnection(0)])
        #expect(pool.isEmpty)
    }
}

/// A retry after a stale connection is only ever given a connection that has carried nothing.
@Suite struct ConnectionPoolRetryTests {
    @Test func aRetryGoesAheadOfWaitersThatCameAfterItAndGetsAFreshConnection() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 1)
        #expect(pool.waiterArrived(1) == [.createConnection(0)])
        #expect(pool.connectionEstablished(0) == [.lease(0, to: 1)])
        // Request 1's connection went stale: it is closed; request 2 queued, then the retry of 1.
        #expect(pool.connectionClosed(0) == [])
        #expect(pool.waiterArrived(2) == [.createConnection(1)])
        #expect(pool.waiterArrived(3, requiresNewConnection: true) == [])
        // The connection made for request 2 is fresh: the retry, at the head, takes it.
        #expect(pool.connectionEstablished(1) == [.lease(1, to: 3)])
        #expect(pool.connectionReleased(1, reusable: true) == [.lease(1, to: 2)])
    }

    /// Review finding: a used connection comes back while a retry's new connection is on its way;
    /// the ordinary waiter behind the retry takes it instead of its being thrown away.
    @Test func aUsedConnectionServesTheWaiterBehindARetryWhoseConnectionIsComing() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 2)
        #expect(pool.waiterArrived(1) == [.createConnection(0)])
        #expect(pool.connectionEstablished(0) == [.lease(0, to: 1)])
        #expect(pool.waiterArrived(2) == [.createConnection(1)])
        #expect(pool.connectionEstablished(1) == [.lease(1, to: 2)])
        // Request 2's connection went stale; its retry waits for a new one, then request 3 comes.
        #expect(pool.connectionClosed(1) == [])
        #expect(pool.waiterArrived(4, requiresNewConnection: true) == [.createConnection(2)])
        #expect(pool.waiterArrived(3) == [])
        #expect(pool.connectionReleased(0, reusable: true) == [.lease(0, to: 3)])
        #expect(pool.connectionEstablished(2) == [.lease(2, to: 4)])
    }

    @Test func retriesAreServedInTheirOwnOrder() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 1)
        #expect(pool.waiterArrived(1) == [.createConnection(0)])
        #expect(pool.connectionEstablished(0) == [.lease(0, to: 1)])
        #expect(pool.waiterArrived(2) == [])
        #expect(pool.waiterArrived(3, requiresNewConnection: true) == [])
        #expect(pool.waiterArrived(4, requiresNewConnection: true) == [])
        #expect(pool.connectionReleased(0, reusable: true) == [.closeConnection(0), .createConnection(1)])
        #expect(pool.connectionEstablished(1) == [.lease(1, to: 3)])
        #expect(pool.connectionReleased(1, reusable: false) == [.closeConnection(1), .createConnection(2)])
        #expect(pool.connectionEstablished(2) == [.lease(2, to: 4)])
        #expect(pool.connectionReleased(2, reusable: true) == [.lease(2, to: 2)])
    }

    @Test func aReleasedConnectionIsReplacedForARetryAtTheHead() {
        var pool = ConnectionPoolStateMachine(maximumConnections: 1)
        #expect(pool.waiterArrived(1) == [.createConnection(0)])
        #expect(pool.connectionEstablished(0) == [.lease(0, to: 1)])
        #expect(pool.waiterArrived(2) == [])
        #expect(pool.waiterArrived(3, requiresNewConnection: true) == [])
        // Connection 0 has carried request 1: the retry gets a new one, then request 2 its turn.
        #expect(pool.connectionReleased(0, reusable: true) == [.closeConnection(0), .createConnection(1)])
        #expect(pool.connectionEstablished(1) == [.lease(1, to: 3)])
        #expect(pool.connectionReleased(1, reusable: true) == [.lease(1, to: 2)])
        #expect(pool.connectionReleased(1, reusable: true) == [.scheduleIdleTimeout(1, generation: 1)])
    }
}
