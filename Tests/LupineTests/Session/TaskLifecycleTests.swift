import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// Task lifecycle: notifications, completion queue, progress, suspend and resume, cancellation.
@Suite struct TaskLifecycleTests {
    @Test(arguments: WireProtocol.allCases) func notificationsArriveOncePerEventInOrder(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let request = try manager.makeRequest(.GET, "get", parameters: nil, headers: nil)
            let completions = Recorder<TaskCompletion>()
            let task = manager.dataTask(with: request) { completions.append($0) }
            let recorder = NotificationRecorder(
                names: [.lupineTaskDidResume, .lupineTaskDidSuspend, .lupineTaskDidComplete],
                object: task
            )
            defer { recorder.stop() }
            task.resume()
            task.resume()
            // The complete notification is posted before the handler is dispatched to its queue.
            try await waitUntil("the complete notification is posted and the handler ran") {
                recorder.names.all.contains(Notification.Name.lupineTaskDidComplete.rawValue) && !completions.all.isEmpty
            }
            #expect(recorder.names.all == [Notification.Name.lupineTaskDidResume.rawValue, Notification.Name.lupineTaskDidComplete.rawValue])
            #expect(completions.all.count == 1)
            #expect(task.state == .completed)
            #expect(manager.tasks.isEmpty)
        }
    }

    @Test(arguments: WireProtocol.allCases) func completionRunsOnTheCompletionQueueInsideTheGroup(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let queue = DispatchQueue(label: "lupine.tests.completion")
            let key = DispatchSpecificKey<String>()
            queue.setSpecific(key: key, value: "completion")
            let group = DispatchGroup()
            manager.completionQueue = queue
            manager.completionGroup = group
            let onQueue: Bool = await withCheckedContinuation { continuation in
                manager.get(
                    "get",
                    success: { _, _ in
                        continuation.resume(returning: DispatchQueue.getSpecific(key: key) == "completion")
                    }, failure: { _, _ in continuation.resume(returning: false) })
            }
            #expect(onQueue)
            #expect(group.wait(timeout: .now() + 5) == .success)
        }
    }

    @Test(arguments: WireProtocol.allCases) func downloadProgressReachesOne(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            manager.responseSerializer = HTTPResponseSerializer()
            let readings = Recorder<Double>()
            let result = await awaitCallback { done in
                manager.get(
                    "bytes/200000",
                    progress: { progress in readings.append(progress.fractionCompleted) },
                    success: { _, value in done(.success(value)) },
                    failure: { _, error in done(.failure(error)) }
                )
            }
            #expect((try? result.get()) != nil)
            #expect(readings.all.last == 1.0)
            #expect(readings.all == readings.all.sorted())
        }
    }

    @Test(arguments: WireProtocol.allCases) func uploadProgressFollowsTheSocketToOne(over wire: WireProtocol) async throws {
        let file = try temporaryFile([UInt8](repeating: 0x61, count: 4 * 1024 * 1024), name: "upload.bin")
        try await withSessionManager(over: wire) { _, manager in
            var request = try manager.makeRequest(.PUT, "put", parameters: nil, headers: nil)
            request.body = .file(file)
            let readings = Recorder<Double>()
            let completion = await withCheckedContinuation { continuation in
                manager.dataTask(
                    with: request,
                    serializer: HTTPResponseSerializer(),
                    uploadProgress: { progress in readings.append(progress.fractionCompleted) }
                ) { continuation.resume(returning: $0) }.resume()
            }
            #expect(completion.error == nil)
            #expect(readings.all.last == 1.0)
            #expect(readings.all == readings.all.sorted())
            // Chunks are counted as the socket takes them, so the upload is seen partway through.
            #expect(readings.all.contains { $0 > 0 && $0 < 1 })
        }
    }

    @Test(arguments: WireProtocol.allCases) func aTaskCancelledBeforeItRunsSendsNothing(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            // An idle pooled connection: a request could go out without any suspension.
            _ = try await manager.get("get")
            let request = try manager.makeRequest(.POST, "post", parameters: ["a": "1"], headers: nil)
            let completion = await withCheckedContinuation { continuation in
                manager.dataTask(with: request) { continuation.resume(returning: $0) }.cancel()
            }
            guard case .cancelled = completion.error else {
                Issue.record("expected a cancellation, got \(String(describing: completion.error))")
                return
            }
            #expect(completion.response == nil)
            #expect(completion.metrics == nil)
        }
    }

    @Test(arguments: WireProtocol.allCases) func progressAsAnAsyncSequenceEndsAtOne(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            manager.responseSerializer = HTTPResponseSerializer()
            let request = try manager.makeRequest(.GET, "stream-bytes/300000", parameters: nil, headers: nil)
            let task = manager.dataTask(with: request) { _ in }
            let updates = task.downloadProgressUpdates()
            task.resume()
            var last: TaskProgress?
            for await reading in updates {
                last = reading
            }
            #expect(last?.fractionCompleted == 1.0)
            #expect(last?.completedUnitCount == 300_000)
        }
    }

    @Test(arguments: WireProtocol.allCases) func suspendStopsReadingAndResumeCompletes(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            manager.responseSerializer = HTTPResponseSerializer()
            let size = 32 * 1024 * 1024
            let request = try manager.makeRequest(.GET, "stream-bytes/\(size)", parameters: nil, headers: nil)
            let completions = Recorder<TaskCompletion>()
            let task = manager.dataTask(with: request) { completions.append($0) }
            task.resume()
            try await waitUntil("some body arrives") { task.countOfBytesReceived > 0 }
            task.suspend()
            #expect(task.state == .suspended)
            var last: Int64 = -1
            var unchanged = 0
            try await waitUntil("reading stops") {
                let now = task.countOfBytesReceived
                unchanged = now == last ? unchanged + 1 : 0
                last = now
                return unchanged >= 20
            }
            #expect(last < Int64(size))
            task.resume()
            // The default bound: 32 MiB under a full suite's load (or a sanitizer) took over 30 s.
            try await waitUntil("the task completes") { !completions.all.isEmpty }
            #expect(completions.all.count == 1)
            #expect(completions.all.first?.error == nil)
            #expect(completions.all.first?.responseData.count == size)
        }
    }

    @Test(arguments: WireProtocol.allCases) func cancelDuringTheBodyCompletesOnceWithCancellation(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            manager.responseSerializer = HTTPResponseSerializer()
            let request = try manager.makeRequest(.GET, "drip?numbytes=100&duration=20", parameters: nil, headers: nil)
            let completions = Recorder<TaskCompletion>()
            let task = manager.dataTask(with: request) { completions.append($0) }
            task.resume()
            try await waitUntil("the body starts") { task.countOfBytesReceived > 0 || task.response != nil }
            task.cancel()
            task.cancel()
            try await waitUntil("the task completes") { !completions.all.isEmpty }
            task.resume()
            task.cancel()
            guard case .cancelled = completions.all.first?.error else {
                Issue.record("expected cancellation, got \(String(describing: completions.all.first?.error))")
                return
            }
            try await waitUntil("no second completion arrives") { task.state == .completed }
            #expect(completions.all.count == 1)
        }
    }

    @Test(arguments: WireProtocol.allCases) func cancellingTheSwiftTaskCancelsTheRequest(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let call = Task { try await manager.get("delay/10") }
            try await waitUntil("the request is running") { !manager.tasks.isEmpty }
            call.cancel()
            await expectSessionCancelled { try await call.value }
        }
    }

    @Test(arguments: WireProtocol.allCases) func cancellingAnAwaitedTaskEndsTheCall(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            // The async verbs run the task in the caller's Swift task: `cancel()` reaches the
            // transport through the task's own cancellation handle.
            let call = Task { try await manager.get("delay/10") }
            try await waitUntil("the request is running") { manager.tasks.first?.state == .running }
            manager.tasks.first?.cancel()
            await expectSessionCancelled { try await call.value }
        }
    }

    @Test(arguments: WireProtocol.allCases) func invalidatingTheSessionCancelsAnAwaitedTaskDuringItsBody(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            manager.responseSerializer = HTTPResponseSerializer()
            let call = Task { try await manager.get("drip?numbytes=100&duration=20") }
            try await waitUntil("the body starts") { (manager.tasks.first?.countOfBytesReceived ?? 0) > 0 }
            manager.invalidateSession(cancelingTasks: true)
            await expectSessionCancelled { try await call.value }
        }
    }

    @Test(arguments: WireProtocol.allCases) func aTaskProgressIsNotAdoptedByTheCallersCurrentProgress(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let request = try manager.makeRequest(.GET, "bytes/1000", parameters: nil, headers: nil)
            let completions = Recorder<TaskCompletion>()
            let parent = Progress(totalUnitCount: 10)
            // The app's progress is current (on this thread) while the task is made.
            func makeTaskWhileCurrent() -> DataTask {
                parent.becomeCurrent(withPendingUnitCount: 10)
                defer { parent.resignCurrent() }
                return manager.dataTask(with: request, downloadProgress: { _ in }) { completions.append($0) }
            }
            let task = makeTaskWhileCurrent()
            // No child took the pending units, so resigning completed them; an adopted task
            // progress would hold them at its own (still zero) fraction.
            #expect(parent.completedUnitCount == 10)
            task.resume()
            try await waitUntil("the task completes") { !completions.all.isEmpty }
            #expect(manager.downloadProgress(for: task).fractionCompleted == 1)
        }
    }

    @Test(arguments: WireProtocol.allCases) func progressCancellationCancelsTheTask(over wire: WireProtocol) async throws {
        try await withSessionManager(over: wire) { _, manager in
            let request = try manager.makeRequest(.GET, "delay/10", parameters: nil, headers: nil)
            let completions = Recorder<TaskCompletion>()
            let task = manager.dataTask(with: request) { completions.append($0) }
            task.resume()
            manager.downloadProgress(for: task).cancel()
            try await waitUntil("the task completes") { !completions.all.isEmpty }
            guard case .cancelled = completions.all.first?.error else {
                Issue.record("expected cancellation")
                return
            }
        }
    }
}
