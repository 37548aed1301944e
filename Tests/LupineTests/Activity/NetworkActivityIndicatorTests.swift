import Foundation
import Lupine
import LupineTestSupport
import Testing

/// The indicator's shell: delays on a manual clock, the action and the streams, the counting of
/// work and of task notifications.
@Suite struct NetworkActivityIndicatorTests {
    /// An indicator on a manual clock whose action records each change.
    static func recorded(activation: Duration, completion: Duration) -> (NetworkActivityIndicator, ManualClock, Recorder<Bool>) {
        let clock = ManualClock()
        let indicator = NetworkActivityIndicator(activationDelay: activation, completionDelay: completion, clock: clock)
        let changes = Recorder<Bool>()
        indicator.setNetworkingActivityAction { changes.append($0) }
        return (indicator, clock, changes)
    }

    @Test func theDefaultsAreAFNetworkings() {
        let indicator = NetworkActivityIndicator()
        #expect(indicator.activationDelay == .seconds(1))
        #expect(indicator.completionDelay == .milliseconds(170))
        #expect(!indicator.isNetworkActivityIndicatorVisible)
        #expect(indicator.activityCount == 0)
    }

    @Test func theDelaysHoldToTheInstant() async throws {
        let (indicator, clock, changes) = Self.recorded(activation: .seconds(1), completion: .seconds(1))
        indicator.increment()
        clock.advance(by: .milliseconds(999))
        #expect(changes.all.isEmpty)
        #expect(!indicator.isNetworkActivityIndicatorVisible)
        clock.advance(by: .milliseconds(1))
        try await waitUntil("the indicator shows") { changes.all == [true] }
        indicator.decrement()
        clock.advance(by: .milliseconds(999))
        #expect(indicator.isNetworkActivityIndicatorVisible)
        clock.advance(by: .milliseconds(1))
        try await waitUntil("the indicator hides") { changes.all == [true, false] }
        #expect(clock.sleeperCount == 0)
    }

    @Test func theStreamHasEachChangeInOrderAndEndsWithTheIndicator() async {
        let updates: AsyncStream<Bool>
        do {
            let indicator = NetworkActivityIndicator(activationDelay: .zero, completionDelay: .zero)
            updates = indicator.visibilityUpdates()
            for _ in 0..<3 {
                indicator.increment()
                indicator.increment()
                indicator.decrement()
                indicator.decrement()
            }
        }
        // The indicator is released: the stream ends after what it had.
        var seen: [Bool] = []
        for await visible in updates {
            seen.append(visible)
        }
        #expect(seen == [true, false, true, false, true, false])
    }

    @Test func anActionMayCallTheIndicatorBackWithoutDeadlock() {
        let indicator = NetworkActivityIndicator(activationDelay: .zero, completionDelay: .zero)
        let changes = Recorder<Bool>()
        indicator.setNetworkingActivityAction { visible in
            changes.append(visible)
            if visible {
                // Ends the work from inside the report of its start: delivered after it, in order.
                indicator.decrement()
            }
            changes.append(indicator.isNetworkActivityIndicatorVisible)
        }
        indicator.increment()
        #expect(changes.all == [true, false, false, false])
    }

    @Test func changesFromManyThreadsEndHiddenWithAlternatingReports() async {
        let (indicator, _, changes) = Self.recorded(activation: .zero, completion: .zero)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<500 {
                        indicator.increment()
                        indicator.decrement()
                    }
                }
            }
        }
        let all = changes.all
        #expect(indicator.activityCount == 0)
        #expect(!indicator.isNetworkActivityIndicatorVisible)
        #expect(all.count.isMultiple(of: 2))
        #expect(all.enumerated().allSatisfy { $0.element == $0.offset.isMultiple(of: 2) })
    }

    @Test func releasedWithATimerPendingItEndsTheTimer() async throws {
        let clock = ManualClock()
        var indicator: NetworkActivityIndicator? = NetworkActivityIndicator(activationDelay: .seconds(1), completionDelay: .seconds(1), clock: clock)
        weak let released = indicator
        indicator?.increment()
        indicator = nil
        #expect(released == nil)
        try await waitUntil("the timer's sleep is cancelled") { clock.sleeperCount == 0 }
    }

    @Test func notificationsCountTasksOnceAndIgnoreOtherObjects() async throws {
        try await withSessionManager { _, manager in
            let center = NotificationCenter()
            var indicator: NetworkActivityIndicator? = NetworkActivityIndicator(activationDelay: .zero, completionDelay: .zero)
            indicator?.observeTaskNotifications(from: center)
            let task = manager.dataTask(with: try manager.makeRequest(.GET, "get", parameters: nil, headers: nil)) { _ in }
            center.post(name: .lupineTaskDidResume, object: task)
            center.post(name: .lupineTaskDidResume, object: task)
            center.post(name: .lupineTaskDidResume, object: nil)
            center.post(name: .lupineTaskDidResume, object: "GET /get" as NSString)
            #expect(indicator?.activityCount == 1)
            center.post(name: .lupineTaskDidSuspend, object: task)
            center.post(name: .lupineTaskDidComplete, object: task)
            #expect(indicator?.activityCount == 0)
            center.post(name: .lupineTaskDidResume, object: task)
            center.post(name: .lupineTaskDidComplete, object: task)
            #expect(indicator?.isNetworkActivityIndicatorVisible == false)
            indicator = nil
            // The observers went with the indicator.
            center.post(name: .lupineTaskDidResume, object: task)
            task.cancel()
        }
    }
}
