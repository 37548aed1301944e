import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import Testing

/// The complete notification's user info carries, as AFNetworking's does, the body, the
/// serialized value, the serializer, the error and the metrics, and for a download its file:
/// each key exactly when it has a value.
@Suite struct CompletionUserInfoTests {
    /// What a test reads from one complete notification's user info.
    struct Observed: Sendable {
        var keys: Set<String> = []
        var responseData: [UInt8]?
        var serializedObject: [String: any Sendable]?
        var serializerIsJSON = false
        var error: LupineError?
        var metricsHaveResponseEnd = false
        var fileURL: URL?
    }

    /// Runs `start` (given the completion handler) and returns the task's complete notification.
    func observeCompletion(
        _ start: (@escaping @Sendable (TaskCompletion) -> Void) -> SessionTask
    ) async throws -> (Observed, TaskCompletion) {
        let observed = Recorder<Observed>()
        let completions = Recorder<TaskCompletion>()
        let task = start { completions.append($0) }
        let token = NotificationCenter.default.addObserver(forName: .lupineTaskDidComplete, object: task, queue: nil) { notification in
            let info = notification.userInfo ?? [:]
            var seen = Observed()
            seen.keys = Set(info.keys.compactMap { $0 as? String })
            seen.responseData = info[LupineNotificationKey.responseData] as? [UInt8]
            seen.serializedObject = info[LupineNotificationKey.serializedResponse] as? [String: any Sendable]
            seen.serializerIsJSON = info[LupineNotificationKey.responseSerializer] is JSONResponseSerializer
            seen.error = info[LupineNotificationKey.error] as? LupineError
            seen.metricsHaveResponseEnd = (info[LupineNotificationKey.metrics] as? TransportMetrics)?.responseEnd != nil
            seen.fileURL = info[LupineNotificationKey.fileURL] as? URL
            observed.append(seen)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        task.resume()
        try await waitUntil("the task completes") { !observed.all.isEmpty && !completions.all.isEmpty }
        #expect(observed.all.count == 1)
        return (try #require(observed.all.first), try #require(completions.all.first))
    }

    @Test func aSuccessCarriesTheBodyTheValueTheSerializerAndTheMetrics() async throws {
        try await withSessionManager { _, manager in
            let request = try manager.makeRequest(.GET, "get", parameters: ["a": "1"], headers: nil)
            let (info, completion) = try await self.observeCompletion { handler in
                manager.dataTask(with: request, completionHandler: handler)
            }
            #expect(
                info.keys == [
                    LupineNotificationKey.responseData, LupineNotificationKey.serializedResponse,
                    LupineNotificationKey.responseSerializer, LupineNotificationKey.metrics,
                ])
            #expect(info.responseData == completion.responseData)
            #expect((info.serializedObject?["args"] as? [String: any Sendable])?["a"] as? String == "1")
            #expect(info.serializerIsJSON)
            #expect(info.metricsHaveResponseEnd)
        }
    }

    @Test func aFailureCarriesItsError() async throws {
        try await withSessionManager { _, manager in
            let request = try manager.makeRequest(.GET, "status/418", parameters: nil, headers: nil)
            let (info, _) = try await self.observeCompletion { handler in
                manager.dataTask(with: request, completionHandler: handler)
            }
            #expect(info.keys.contains(LupineNotificationKey.error))
            // The teapot's text/plain body fails validation before its status does.
            guard case .responseValidationFailed = info.error else {
                Issue.record("expected a validation error, got \(String(describing: info.error))")
                return
            }
            #expect(!info.keys.contains(LupineNotificationKey.fileURL))
        }
    }

    @Test func aDownloadCarriesItsFile() async throws {
        try await withSessionManager { _, manager in
            let request = try manager.makeRequest(.GET, "bytes/1000", parameters: nil, headers: nil)
            let (info, completion) = try await self.observeCompletion { handler in
                manager.downloadTask(with: request, completionHandler: handler)
            }
            #expect(info.fileURL != nil)
            #expect(info.fileURL == completion.fileURL)
            #expect(!info.keys.contains(LupineNotificationKey.error))
            if let file = info.fileURL {
                try? FileManager.default.removeItem(at: file)
            }
        }
    }
}
