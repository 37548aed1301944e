import Foundation
import Lupine
import LupineTestSupport
import NIOConcurrencyHelpers
import Testing

/// A ``Transport`` written outside Lupine (here one that answers from memory, as a cache or a
/// recording would) carries a session manager's requests: the public initializers of
/// ``TransportResponse`` and ``ResponseBody`` are enough to write one, with `import Lupine` alone
/// (as the README shows).
@Suite struct CustomTransportTests {
    struct MemoryTransport: Transport {
        let body: String

        func execute(_ request: TransportRequest) async throws -> TransportResponse {
            let headers: HTTPHeaders = ["Content-Type": "application/json", "Content-Length": "\(self.body.utf8.count)"]
            let half = self.body.index(self.body.startIndex, offsetBy: self.body.count / 2)
            let buffers = [ByteBuffer(string: String(self.body[..<half])), ByteBuffer(string: String(self.body[half...]))]
            return TransportResponse(status: .ok, headers: headers, url: request.url, body: ResponseBody(buffers))
        }

        func shutdown() async {}
    }

    @Test func aSessionRunsOnATransportThatAnswersFromMemory() async throws {
        let manager = HTTPSessionManager(
            baseURL: URL(string: "https://api.example.test/"),
            transport: MemoryTransport(body: #"{"greeting": "hello", "count": 2}"#)
        )
        let response = try await manager.get("v1/hello", parameters: ["a": "1"])
        let object = try #require(response.value as? [String: any Sendable])
        #expect(object["greeting"] as? String == "hello")
        #expect(object["count"] as? Int == 2)
        #expect(response.head?.url.absoluteString == "https://api.example.test/v1/hello?a=1")
        #expect(response.metrics?.isReusedConnection == false)
        manager.invalidateSession(cancelingTasks: false)
    }

    /// Records the Swift task its request runs in.
    struct TaskRecordingTransport: Transport {
        let ranIn = NIOLockedValueBox<Int?>(nil)

        func execute(_ request: TransportRequest) async throws -> TransportResponse {
            let task = withUnsafeCurrentTask { $0?.hashValue }
            self.ranIn.withLockedValue { $0 = task }
            return TransportResponse(status: .noContent, headers: [:], url: request.url, body: ResponseBody([]))
        }

        func shutdown() async {}
    }

    @Test func anyTransportRunsTheTaskInTheCallersSwiftTask() async throws {
        let transport = TaskRecordingTransport()
        let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.test/"), transport: transport)
        manager.responseSerializer = HTTPResponseSerializer()
        let caller = withUnsafeCurrentTask { $0?.hashValue }
        _ = try await manager.get("inline")
        #expect(caller != nil)
        #expect(transport.ranIn.withLockedValue { $0 } == caller, "no runner task, whatever the transport")
        manager.invalidateSession(cancelingTasks: false)
    }

    /// A transport that answers only when cancelled, through the request's handle: the one route
    /// by which a session's `task.cancel()` reaches any transport.
    struct StalledTransport: Transport {
        func execute(_ request: TransportRequest) async throws -> TransportResponse {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                request.cancellation.whenCancelled { continuation.resume(throwing: TransportError.cancelled) }
            }
        }

        func shutdown() async {}
    }

    @Test func cancellingATaskReachesACustomTransportThroughTheHandle() async throws {
        let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.test/"), transport: StalledTransport())
        let call = Task { try await manager.get("slow") }
        try await waitUntil("the task is running") { manager.tasks.first?.state == .running }
        manager.tasks.first?.cancel()
        await expectSessionCancelled { try await call.value }
        #expect(!call.isCancelled, "the Swift task was not cancelled: the handle alone ended the request")
        manager.invalidateSession(cancelingTasks: false)
    }
}
