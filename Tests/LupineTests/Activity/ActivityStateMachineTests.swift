import Testing

@testable import Lupine

/// AFNetworkActivityIndicatorManager's states, decided without a clock.
@Suite struct ActivityStateMachineTests {
    typealias Machine = ActivityStateMachine

    @Test func workThatOutlastsTheActivationDelayShowsAndHidesAfterTheCompletionDelay() {
        var machine = Machine(activationDelay: .seconds(1), completionDelay: .milliseconds(170))
        #expect(machine.increment() == [.startTimer(id: 0, after: .seconds(1))])
        #expect(machine.state == .delayingStart(timer: 0))
        #expect(machine.timerFired(0) == [.reportVisible(true)])
        #expect(machine.state == .active)
        #expect(machine.decrement() == [.startTimer(id: 1, after: .milliseconds(170))])
        #expect(machine.state == .delayingEnd(timer: 1))
        #expect(machine.isVisible)
        #expect(machine.timerFired(1) == [.reportVisible(false)])
        #expect(machine.state == .notActive)
    }

    @Test func workThatEndsWithinTheActivationDelayNeverShows() {
        var machine = Machine(activationDelay: .seconds(1), completionDelay: .seconds(1))
        _ = machine.increment()
        #expect(machine.decrement() == [])
        #expect(machine.timerFired(0) == [])
        #expect(machine.state == .notActive)
        #expect(!machine.isVisible)
    }

    @Test func moreWorkDuringTheActivationDelayStartsNoSecondTimer() {
        var machine = Machine(activationDelay: .seconds(1), completionDelay: .seconds(1))
        _ = machine.increment()
        #expect(machine.increment() == [])
        #expect(machine.decrement() == [])
        #expect(machine.timerFired(0) == [.reportVisible(true)])
        #expect(machine.count == 1)
    }

    @Test func workDuringTheCompletionDelayKeepsItShownWithoutAReport() {
        var machine = Machine(activationDelay: .seconds(1), completionDelay: .seconds(1))
        _ = machine.increment()
        _ = machine.timerFired(0)
        _ = machine.decrement()
        #expect(machine.increment() == [.cancelTimer(id: 1)])
        #expect(machine.state == .active)
        // The cancelled timer's firing, should it come anyway, changes nothing.
        #expect(machine.timerFired(1) == [])
        #expect(machine.isVisible)
    }

    @Test func zeroDelaysShowAndHideAtOnce() {
        var machine = Machine(activationDelay: .zero, completionDelay: .zero)
        #expect(machine.increment() == [.reportVisible(true)])
        #expect(machine.increment() == [])
        #expect(machine.decrement() == [])
        #expect(machine.decrement() == [.reportVisible(false)])
    }

    @Test func theCountNeverGoesBelowZero() {
        var machine = Machine(activationDelay: .zero, completionDelay: .zero)
        #expect(machine.decrement() == [])
        #expect(machine.count == 0)
        #expect(machine.increment() == [.reportVisible(true)])
        #expect(machine.count == 1)
    }

    @Test func negativeDelaysCountAsZero() {
        var machine = Machine(activationDelay: .seconds(-5), completionDelay: .seconds(1))
        machine.completionDelay = .milliseconds(-1)
        #expect(machine.activationDelay == .zero)
        #expect(machine.completionDelay == .zero)
        #expect(machine.increment() == [.reportVisible(true)])
        #expect(machine.decrement() == [.reportVisible(false)])
    }

    @Test func aTimerOfNoStateDoesNothing() {
        var machine = Machine(activationDelay: .seconds(1), completionDelay: .seconds(1))
        #expect(machine.timerFired(7) == [])
        _ = machine.increment()
        #expect(machine.timerFired(7) == [])
        #expect(machine.state == .delayingStart(timer: 0))
    }
}
