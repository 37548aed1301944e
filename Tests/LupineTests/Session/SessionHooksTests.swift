import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// The response, data and completion hooks, session-wide and per task.
@Suite struct SessionHooksTests {
    @Test func dataAndCompletionHooksSeeEveryChunkAndTheEnd() async throws {
        try await withSessionManager { _, manager in
            let received = Recorder<Int>()
            let completed = Recorder<Bool>()
            var hooks = SessionHooks()
            hooks.didReceiveData = { _, chunk in received.append(chunk.readableBytes) }
            hooks.didComplete = { _, error in completed.append(error == nil) }
            manager.hooks = hooks
            manager.responseSerializer = HTTPResponseSerializer()
            let response = try await manager.request(.GET, "bytes/100000", serializer: HTTPResponseSerializer())
            #expect(response.data.count == 100_000)
            try await waitUntil("the completion hook runs") { !completed.all.isEmpty }
            #expect(received.all.reduce(0, +) == 100_000)
            #expect(completed.all == [true])
        }
    }

    @Test func taskHookCancellingOnTheResponseHeadWinsOverTheSessionHook() async throws {
        try await withSessionManager { _, manager in
            var sessionHooks = SessionHooks()
            sessionHooks.didReceiveResponse = { _, _ in .allow }
            manager.hooks = sessionHooks
            var taskHooks = SessionHooks()
            taskHooks.didReceiveResponse = { _, head in head.statusCode == 200 ? .cancel : .allow }
            let request = try manager.makeRequest(.GET, "get", parameters: nil, headers: nil)
            let completion: TaskCompletion = await withCheckedContinuation { continuation in
                manager.dataTask(with: request, hooks: taskHooks) { continuation.resume(returning: $0) }.resume()
            }
            guard case .cancelled = completion.error else {
                Issue.record("expected cancellation, got \(String(describing: completion.error))")
                return
            }
        }
    }
}
