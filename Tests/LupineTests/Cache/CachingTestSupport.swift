import Foundation
import Lupine
import LupineTestServer

/// A manager on `transport` with an in-memory ``HTTPCache`` (or the one given), talking to `server`.
func cachingManager(_ transport: NIOTransport, cache: HTTPCache = HTTPCache(memoryCapacity: 1024 * 1024)) -> SessionManager {
    let manager = SessionManager(transport: transport)
    manager.urlCache = cache
    return manager
}

/// The URL of the counted endpoint for `key`, answering with `headers` (in the query, encoded).
func countedURL(_ server: LupineTestServer, _ key: String, _ headers: [(String, String)] = [], status: Int? = nil) -> URL {
    var components = URLComponents(url: server.baseURL.appending(path: "counted/\(key)"), resolvingAgainstBaseURL: false)
    var items = headers.map { URLQueryItem(name: $0.0, value: $0.1) }
    if let status {
        items.append(URLQueryItem(name: "status", value: String(status)))
    }
    components?.queryItems = items.isEmpty ? nil : items
    // A `+` inside a value must reach the server as itself, not as a space.
    let query = components?.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
    components?.percentEncodedQuery = query
    return components?.url ?? server.baseURL
}

extension TaskCompletion {
    /// The `count` the counted endpoint put in the body: which request's response this is.
    var servedCount: Int? {
        ((try? JSONSerialization.jsonObject(with: Data(self.responseData))) as? [String: Any])?["count"] as? Int
    }
}

extension LupineTestServer {
    /// How many requests, and how many conditional ones, the counted endpoint saw under `key`.
    func counted(_ key: String) -> (requests: Int, conditional: Int) {
        (self.attempts(forKey: "counted-\(key)"), self.attempts(forKey: "counted-\(key)-conditional"))
    }
}
