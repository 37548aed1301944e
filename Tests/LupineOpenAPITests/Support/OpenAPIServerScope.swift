import Foundation
import Lupine
import LupineOpenAPI
import LupineTestServer

/// Runs `body` with a freshly started test server, a session manager and the generated client
/// sending through it over loopback, then invalidates the session and stops the server, whether
/// `body` succeeds or throws.
func withClient<Result>(
    // A connect on a fully loaded machine can wait its turn for seconds.
    transport: TransportConfiguration = TransportConfiguration(connectTimeout: .seconds(60)),
    configuring configure: (HTTPSessionManager) -> Void = { _ in },
    _ body: (LupineTestServer, HTTPSessionManager, Client) async throws -> Result
) async throws -> Result {
    // The server's own deadline (10 s by default) is not what these tests test, and must not
    // end a stalled exchange before the client's cancellation does (which is waited for 60 s).
    var configuration = LupineTestServer.Configuration()
    configuration.requestHeadTimeout = .seconds(600)
    let server = try await LupineTestServer.start(configuration)
    let manager = HTTPSessionManager(configuration: transport)
    configure(manager)
    let client = Client(serverURL: server.baseURL, transport: LupineClientTransport(manager: manager))
    do {
        let result = try await body(server, manager, client)
        manager.invalidateSession(cancelingTasks: true)
        await server.stop()
        return result
    } catch {
        manager.invalidateSession(cancelingTasks: true)
        await server.stop()
        throw error
    }
}

/// Waits until `condition` holds, polling every few milliseconds, or fails after `timeout`.
func waitUntil(timeout: Duration = .seconds(120), _ description: String, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            throw WaitTimeout(description: description)
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// ``waitUntil(timeout:_:_:)`` gave up.
struct WaitTimeout: Error, CustomStringConvertible {
    let description: String
}
