import Foundation
import LupineTestServer
import LupineTestSupport

/// Runs `body` against a freshly started server and stops the server afterwards, even on failure.
/// The default server allows a minute for a request head: on a loaded machine a test's task can
/// wait seconds between connecting and sending, and the server's 10 s default would reset it.
func withServer<Result>(
    _ configuration: LupineTestServer.Configuration = .init(requestHeadTimeout: .seconds(60)),
    _ body: (LupineTestServer) async throws -> Result
) async throws -> Result {
    let server = try await LupineTestServer.start(configuration)
    return try await running {
        try await body(server)
    } thenAlways: {
        await server.stop()
    }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(
    timeout: Duration = .seconds(120),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}

extension LupineTestServer {
    /// A raw client connected to the main listener.
    func connect() async throws -> RawHTTPClient {
        try await RawHTTPClient.connect(to: baseURL)
    }

    /// A raw client connected to the fault listener.
    func connectToFaults() async throws -> RawHTTPClient {
        try await RawHTTPClient.connect(to: faultsBaseURL)
    }
}
