import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// AFNetworkActivityManagerTests' cases, driven by real sessions over loopback: the indicator
/// is one of the session's event monitors and counts its tasks, no increments by hand. The delays
/// run on a manual clock; a request that lasts is a `/stall-before-headers` request, ended by
/// cancelling it.
@Suite struct ActivityIndicatorSessionTests {
    /// A session whose tasks an indicator on a manual clock counts; the indicator's reports are recorded.
    struct Fixture {
        let server: LupineTestServer
        let manager: HTTPSessionManager
        let indicator: NetworkActivityIndicator
        let clock: ManualClock
        let changes: Recorder<Bool>

        /// Resumes a GET of `path` on the session; the stream yields its completion.
        func start(_ path: String, onFaultListener: Bool = false) throws -> (DataTask, AsyncStream<TaskCompletion>) {
            let url = onFaultListener ? self.server.faultsBaseURL.appending(path) : self.server.baseURL.appending(path)
            let (completions, continuation) = AsyncStream.makeStream(of: TaskCompletion.self)
            let task = self.manager.dataTask(with: Request(url: url)) { completion in
                continuation.yield(completion)
                continuation.finish()
            }
            task.resume()
            return (task, completions)
        }

        /// A request the server never answers, which lasts until cancelled.
        func startStalled() throws -> (DataTask, AsyncStream<TaskCompletion>) {
            try self.start("/stall-before-headers", onFaultListener: true)
        }
    }

    func withIndicator(activation: Duration, completion: Duration, _ body: (Fixture) async throws -> Void) async throws {
        try await withSessionManager { server, manager in
            let (indicator, clock, changes) = NetworkActivityIndicatorTests.recorded(activation: activation, completion: completion)
            manager.eventMonitors.append(indicator)
            try await body(Fixture(server: server, manager: manager, indicator: indicator, clock: clock, changes: changes))
        }
    }

    /// Cancels `task` and waits for its completion.
    func cancel(_ task: (DataTask, AsyncStream<TaskCompletion>)) async {
        task.0.cancel()
        for await _ in task.1 {}
    }

    @Test(arguments: ["/get", "/status/404"])
    func noDelaysShowThenHideOnceAroundARequest(path: String) async throws {
        try await withIndicator(activation: .zero, completion: .zero) { fixture in
            let (_, completions) = try fixture.start(path)
            var completion: TaskCompletion?
            for await done in completions { completion = done }
            #expect(completion?.response?.statusCode == (path == "/get" ? 200 : 404))
            // Shown on resume, hidden when the task completed: before its handler ran.
            #expect(fixture.changes.all == [true, false])
            #expect(fixture.indicator.activityCount == 0)
        }
    }

    @Test func delaysKeepItHiddenForTheFirstSecondAndShownForASecondAfter() async throws {
        try await withIndicator(activation: .seconds(1), completion: .seconds(1)) { fixture in
            let request = try fixture.startStalled()
            #expect(fixture.indicator.activityCount == 1)
            fixture.clock.advance(by: .milliseconds(999))
            #expect(fixture.changes.all.isEmpty)
            fixture.clock.advance(by: .milliseconds(1))
            try await waitUntil("the indicator shows after a second") { fixture.changes.all == [true] }
            await self.cancel(request)
            fixture.clock.advance(by: .milliseconds(999))
            #expect(fixture.changes.all == [true])
            #expect(fixture.indicator.isNetworkActivityIndicatorVisible)
            fixture.clock.advance(by: .milliseconds(1))
            try await waitUntil("the indicator hides a second after the request") { fixture.changes.all == [true, false] }
        }
    }

    @Test func overlappingRequestsShowAndHideOnce() async throws {
        try await withIndicator(activation: .seconds(1), completion: .seconds(1)) { fixture in
            let longer = try fixture.startStalled()
            let shorter = try fixture.startStalled()
            #expect(fixture.indicator.activityCount == 2)
            fixture.clock.advance(by: .seconds(1))
            try await waitUntil("the indicator shows") { fixture.changes.all == [true] }
            await self.cancel(shorter)
            fixture.clock.advance(by: .seconds(2))
            await self.cancel(longer)
            fixture.clock.advance(by: .seconds(1))
            try await waitUntil("the indicator hides") { fixture.changes.all == [true, false] }
            #expect(fixture.clock.sleeperCount == 0)
        }
    }

    @Test func aRequestDuringTheCompletionDelayKeepsItShownWithoutAReport() async throws {
        try await withIndicator(activation: .seconds(1), completion: .seconds(1)) { fixture in
            let first = try fixture.startStalled()
            fixture.clock.advance(by: .seconds(1))
            try await waitUntil("the indicator shows") { fixture.changes.all == [true] }
            await self.cancel(first)
            fixture.clock.advance(by: .milliseconds(500))
            let second = try fixture.startStalled()
            // The completion timer is cancelled: no time hides it now.
            try await waitUntil("the completion timer is cancelled") { fixture.clock.sleeperCount == 0 }
            fixture.clock.advance(by: .seconds(5))
            #expect(fixture.changes.all == [true])
            await self.cancel(second)
            fixture.clock.advance(by: .seconds(1))
            try await waitUntil("the indicator hides") { fixture.changes.all == [true, false] }
        }
    }

    @Test func aTaskCountsOnceHoweverOftenResumedAndSuspendedThenCompletedCountsNoMore() async throws {
        try await withIndicator(activation: .zero, completion: .zero) { fixture in
            fixture.indicator.increment()  // work that is not a task, which the task must not uncount
            let request = try fixture.startStalled()
            request.0.resume()
            #expect(fixture.indicator.activityCount == 2)
            request.0.suspend()
            #expect(fixture.indicator.activityCount == 1)
            request.0.resume()
            request.0.resume()
            #expect(fixture.indicator.activityCount == 2)
            request.0.suspend()
            await self.cancel(request)
            #expect(fixture.indicator.activityCount == 1)
            #expect(fixture.indicator.isNetworkActivityIndicatorVisible)
            fixture.indicator.decrement()
            #expect(fixture.changes.all == [true, false])
        }
    }
}
