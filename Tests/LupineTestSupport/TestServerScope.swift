import LupineTestServer

extension LupineTestServer.Configuration {
    /// This configuration with a request-head and stalled-body deadline of at least a minute: the
    /// client tests do not test the server's deadline (10 s by default), and on a fully loaded
    /// machine a request's task can wait its turn long enough to be cut by it.
    public var lenient: Self {
        var configuration = self
        configuration.requestHeadTimeout = max(configuration.requestHeadTimeout, .seconds(60))
        return configuration
    }
}

/// Runs `body` with a freshly started test server and stops the server afterwards, whether
/// `body` returns or throws: the one server scope of every test target. The default server is
/// ``LupineTestServer/Configuration/lenient``; a configuration given is used as it is (a test of
/// the server's own deadline gives a short one; a client test gives its own `.lenient`).
public func withTestServer<Result>(
    _ configuration: LupineTestServer.Configuration = LupineTestServer.Configuration().lenient,
    _ body: (LupineTestServer) async throws -> Result
) async throws -> Result {
    let server = try await LupineTestServer.start(configuration)
    return try await running {
        try await body(server)
    } thenAlways: {
        await server.stop()
    }
}
