import Foundation
import Lupine
import LupineOpenAPI
import LupineTestServer
import LupineTestSupport

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
    return try await withTestServer(configuration) { server in
        let manager = HTTPSessionManager(configuration: transport)
        configure(manager)
        let client = Client(serverURL: server.baseURL, transport: LupineClientTransport(manager: manager))
        return try await running {
            try await body(server, manager, client)
        } thenAlways: {
            manager.invalidateSession(cancelingTasks: true)
        }
    }
}
