import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// ``EventMonitor``s hear the same events as the notifications, in order, once each.
@Suite struct EventMonitorTests {
    final class RecordingMonitor: EventMonitor {
        let events = Recorder<String>()

        func taskDidResume(_ task: SessionTask) { self.events.append("resume \(task.taskIdentifier)") }
        func taskDidSuspend(_ task: SessionTask) { self.events.append("suspend \(task.taskIdentifier)") }
        func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion) {
            self.events.append("complete \(task.taskIdentifier) \(completion.response?.statusCode ?? 0) \(completion.metrics != nil)")
        }
        func sessionDidInvalidate(_ manager: SessionManager) { self.events.append("invalidate") }
    }

    @Test func monitorSeesResumeSuspendCompleteAndInvalidate() async throws {
        let server = try await LupineTestServer.start()
        let manager = HTTPSessionManager(baseURL: server.baseURL, configuration: TransportConfiguration())
        let monitor = RecordingMonitor()
        manager.eventMonitors = [monitor]
        manager.responseSerializer = HTTPResponseSerializer()
        let request = try manager.makeRequest(.GET, "drip?numbytes=10&duration=0.5", parameters: nil, headers: nil)
        let completions = Recorder<TaskCompletion>()
        let task = manager.dataTask(with: request) { completions.append($0) }
        task.resume()
        task.suspend()
        task.resume()
        try await waitUntil("the task completes") { !completions.all.isEmpty }
        manager.invalidateSession(cancelingTasks: true)
        try await waitUntil("the monitor hears the invalidation") { monitor.events.all.contains("invalidate") }
        let id = task.taskIdentifier
        #expect(monitor.events.all == ["resume \(id)", "suspend \(id)", "resume \(id)", "complete \(id) 200 true", "invalidate"])
        await server.stop()
    }

    @Test func tasksAfterInvalidationFailWithSessionInvalidated() async throws {
        let manager = HTTPSessionManager(baseURL: URL(string: "http://127.0.0.1:1"), configuration: TransportConfiguration())
        manager.invalidateSession(cancelingTasks: false)
        await #expect {
            _ = try await manager.get("get")
        } throws: { error in
            guard case LupineError.sessionInvalidated = error else { return false }
            return true
        }
    }

    @Test func invalidatingWithoutCancellingLetsRunningTasksFinish() async throws {
        let server = try await LupineTestServer.start()
        let manager = HTTPSessionManager(baseURL: server.baseURL, configuration: TransportConfiguration())
        manager.responseSerializer = HTTPResponseSerializer()
        let slow = server.faultsBaseURL.absoluteString + "/drip?bytes=5&interval_ms=100"
        async let running = manager.get(slow)
        try await waitUntil("the task is running") { !manager.tasks.isEmpty }
        manager.invalidateSession(cancelingTasks: false)
        let response = try await running
        #expect(response.value as? [UInt8] == Array("*****".utf8))
        await server.stop()
    }
}
