import Foundation
import Lupine
import LupineTestSupport
import Testing

/// Which moves of a task's state are legal, by value, and that a task's calls follow them.
@Suite struct TaskStateTests {
    static let all: [TaskState] = [.suspended, .running, .canceling, .completed]

    /// Every pair of states, and whether a task may go from the first to the second.
    @Test func theTransitionTableIsAsDocumented() {
        let legal: Set<String> = [
            "suspended→running", "running→suspended",
            "suspended→canceling", "running→canceling",
            "suspended→completed", "running→completed", "canceling→completed",
        ]
        for from in Self.all {
            for to in Self.all {
                #expect(from.canTransition(to: to) == legal.contains("\(from)→\(to)"), "\(from) → \(to)")
            }
        }
    }

    /// A task's calls move it only along the table: resuming twice, suspending a suspended task,
    /// or cancelling twice changes nothing, and nothing moves a completed task.
    @Test func aTasksCallsFollowTheTable() async throws {
        let transport = ScriptedTransport { _, index in index == 0 ? .stall : .respond(.ok) }
        let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.test/"), transport: transport)
        manager.responseSerializer = HTTPResponseSerializer()
        let done = AsyncStream<Void>.makeStream()
        let task = manager.dataTask(with: Request(url: try #require(URL(string: "https://api.example.test/stall")))) { _ in
            done.continuation.finish()
        }
        #expect(task.state == .suspended)
        task.suspend()
        #expect(task.state == .suspended)
        task.resume()
        task.resume()
        #expect(task.state == .running)
        task.suspend()
        #expect(task.state == .suspended)
        task.resume()
        task.cancel()
        #expect(task.state == .canceling || task.state == .completed)
        task.resume()
        task.suspend()
        #expect(task.state == .canceling || task.state == .completed)
        for await _ in done.stream {}
        #expect(task.state == .completed)
        task.resume()
        task.cancel()
        task.suspend()
        #expect(task.state == .completed)
        manager.invalidateSession(cancelingTasks: true)
    }
}
