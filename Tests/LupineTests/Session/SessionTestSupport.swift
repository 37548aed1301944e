import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOConcurrencyHelpers
import Testing

/// Runs `body` with a test server and an ``HTTPSessionManager`` whose base URL is the server's,
/// on a transport of its own that is shut down afterwards, both speaking `wire` when given.
func withSessionManager<Result>(
    over wire: WireProtocol? = nil,
    server configuration: LupineTestServer.Configuration = .init(),
    _ body: (LupineTestServer, HTTPSessionManager) async throws -> Result
) async throws -> Result {
    let server = try await LupineTestServer.start(WireProtocol.server(configuration, over: wire).lenient)
    // A connect (and TLS handshake) on a fully loaded machine can wait its turn for seconds.
    let transport = WireProtocol.transport(TransportConfiguration(connectTimeout: .seconds(60)), over: wire)
    let manager = HTTPSessionManager(baseURL: server.baseURL, configuration: transport)
    return try await running {
        try await body(server, manager)
    } thenAlways: {
        manager.invalidateSession(cancelingTasks: true)
        await server.stop()
    }
}

/// Observes the session notifications posted for one object, in order.
final class NotificationRecorder {
    let names = Recorder<String>()
    private var observers: [any NSObjectProtocol] = []

    init(names: [Notification.Name], object: AnyObject) {
        let recorded = self.names
        self.observers = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { notification in
                recorded.append(notification.name.rawValue)
            }
        }
    }

    func stop() {
        for token in self.observers {
            NotificationCenter.default.removeObserver(token)
        }
    }
}

/// Runs an AFNetworking-style call and waits for its success or failure.
func awaitCallback(
    _ start: (@escaping @Sendable (Result<(any Sendable)?, LupineError>) -> Void) -> Void
) async -> Result<(any Sendable)?, LupineError> {
    await withCheckedContinuation { continuation in
        start { continuation.resume(returning: $0) }
    }
}

extension Optional where Wrapped == any Sendable {
    /// The value as a JSON object.
    var jsonObject: [String: any Sendable]? { self as? [String: any Sendable] }
}

extension SessionManager {
    /// A download of `url` resumed from `resumeData`, started at once; its completion, or a
    /// recorded issue (and no completion: the suite's time limit ends it) when the task cannot be made.
    func resumedDownload(of url: URL, from resumeData: ResumeData) -> Task<TaskCompletion, Never> {
        Task {
            await withCheckedContinuation { (continuation: CheckedContinuation<TaskCompletion, Never>) in
                do {
                    let task = try self.downloadTask(with: Request(url: url), resumeData: resumeData) { continuation.resume(returning: $0) }
                    task.resume()
                } catch {
                    Issue.record("\(error)")
                }
            }
        }
    }
}
