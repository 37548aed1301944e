import Foundation
import Testing

@testable import Lupine

@Suite("AuthenticationInterceptor's refresh state, by value")
struct AuthenticationRefreshStateTests {
    struct Token: AuthenticationCredential {
        let value: String
        var requiresRefresh: Bool { false }
    }

    /// Waiters are plain numbers here.
    typealias State = AuthenticationRefreshState<Token, Int>
    let start = ContinuousClock.now

    func enter(_ state: inout State, _ need: State.Need, waiter: Int, at offset: Duration = .zero, maximumAttempts: Int = 5) -> String {
        let slot = state.makeSlot()
        let action = state.enter(slot, need: need, waiter: waiter, interval: .seconds(30), maximumAttempts: maximumAttempts, now: start + offset)
        return Self.describe(action)
    }

    static func describe(_ action: State.EnterAction) -> String {
        switch action {
        case .wait: return "wait"
        case .startRefresh(_, let credential): return "refresh \(credential.value)"
        case .resume(let waiter, .success(let credential)): return "resume \(waiter) with \(credential.value)"
        case .resume(let waiter, .failure(let error)): return "fail \(waiter): \(error.description)"
        }
    }

    @Test func oneRefreshRunsAndEveryoneWaitsForIt() throws {
        var state = State(credential: Token(value: "old"))
        #expect(enter(&state, .refresh(generation: 0), waiter: 1) == "refresh old")
        #expect(enter(&state, .refresh(generation: 0), waiter: 2) == "wait")
        #expect(enter(&state, .current, waiter: 3) == "wait")
        #expect(state.waitingCount == 3)
        let refreshID = try #require(state.refreshing)
        #expect(state.finish(refresh: refreshID + 100, with: .success(Token(value: "stale"))) == [])
        #expect(state.finish(refresh: refreshID, with: .success(Token(value: "new"))).sorted() == [1, 2, 3])
        #expect(state.credential?.value == "new")
        #expect(state.generation == 1)
        // A refusal of a request sent with the old credential: the new one, no second refresh.
        #expect(enter(&state, .refresh(generation: 0), waiter: 4) == "resume 4 with new")
        #expect(state.refreshing == nil)
    }

    @Test func aFailedRefreshReachesEveryWaiterAndKeepsTheCredential() {
        var state = State(credential: Token(value: "old"))
        #expect(enter(&state, .refresh(generation: 0), waiter: 1) == "refresh old")
        #expect(enter(&state, .current, waiter: 2) == "wait")
        let failure = LupineError.authenticationFailed(.refreshTimedOut(timeout: .seconds(1)))
        #expect(state.finish(refresh: state.refreshing ?? -1, with: .failure(failure)).sorted() == [1, 2])
        #expect(state.credential?.value == "old")
        #expect(state.generation == 0)
        #expect(state.waitingCount == 0)
    }

    @Test func refreshesBeyondTheWindowFailUntilItSlides() {
        var state = State(credential: Token(value: "t"))
        for round in 0..<2 {
            #expect(enter(&state, .refresh(generation: round), waiter: round, at: .seconds(round), maximumAttempts: 2) == "refresh t")
            _ = state.finish(refresh: state.refreshing ?? -1, with: .success(Token(value: "t")))
        }
        let refused = enter(&state, .refresh(generation: 2), waiter: 9, at: .seconds(5), maximumAttempts: 2)
        #expect(refused == "fail 9: " + LupineError.authenticationFailed(.excessiveRefresh(count: 2, interval: .seconds(30))).description)
        // The first refresh leaves the window 30 s after it started.
        #expect(enter(&state, .refresh(generation: 2), waiter: 10, at: .seconds(30), maximumAttempts: 2) == "refresh t")
        var never = State(credential: Token(value: "t"))
        #expect(enter(&never, .refresh(generation: 0), waiter: 1, maximumAttempts: 0).hasPrefix("fail 1"))
    }

    @Test func cancellationBeforeOrWhileWaitingLeavesNoWaiter() {
        var state = State(credential: Token(value: "t"))
        let early = state.makeSlot()
        #expect(state.cancel(early) == nil)
        let action = state.enter(early, need: .current, waiter: 1, interval: .seconds(30), maximumAttempts: 5, now: start)
        #expect(Self.describe(action) == "fail 1: " + LupineError.cancelled.description)

        #expect(enter(&state, .refresh(generation: 0), waiter: 2) == "refresh t")
        let late = state.makeSlot()
        #expect(Self.describe(state.enter(late, need: .current, waiter: 3, interval: .seconds(30), maximumAttempts: 5, now: start)) == "wait")
        #expect(state.cancel(late) == 3)
        #expect(state.cancel(late) == nil)
        #expect(state.finish(refresh: state.refreshing ?? -1, with: .success(Token(value: "u"))) == [2])
        #expect(state.waitingCount == 0)
    }

    @Test func noCredentialFailsAndASetOneIsUsed() {
        var state = State(credential: nil)
        #expect(enter(&state, .current, waiter: 1) == "fail 1: " + LupineError.authenticationFailed(.missingCredential).description)
        state.setCredential(Token(value: "set"))
        #expect(state.generation == 1)
        #expect(enter(&state, .refresh(generation: 0), waiter: 2) == "resume 2 with set")
    }
}
