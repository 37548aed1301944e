import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport

extension SessionManager {
    /// Runs `request` as a data task and returns its completion.
    func complete(_ request: Request) async -> TaskCompletion {
        await withCheckedContinuation { continuation in
            self.dataTask(with: request) { continuation.resume(returning: $0) }.resume()
        }
    }

    /// Runs `request` as a data task, handing the running task to `whileRunning`, and returns its
    /// completion.
    func complete(_ request: Request, whileRunning: (SessionTask) async throws -> Void) async throws -> TaskCompletion {
        let (completions, continuation) = AsyncStream.makeStream(of: TaskCompletion.self)
        let task = self.dataTask(with: request) { continuation.yield($0) }
        task.resume()
        try await whileRunning(task)
        var iterator = completions.makeAsyncIterator()
        guard let completion = await iterator.next() else { throw WaitTimeout(description: "no completion") }
        return completion
    }
}

extension LupineTestServer {
    /// A request for `pathAndQuery` on this server.
    func request(_ pathAndQuery: String, method: HTTPMethod = .GET, interceptor: (any RequestInterceptor)? = nil) -> Request {
        Request(url: self.baseURL.appending(pathAndQuery), method: method, interceptor: interceptor)
    }
}

extension TaskCompletion {
    /// The status of the final response, or `nil`.
    var statusCode: Int? { self.response?.statusCode }
}
