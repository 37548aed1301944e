import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// Requests over Unix domain sockets: `http+unix` and `https+unix` URLs, and a configuration's
/// socket for ordinary URLs (curl's `--unix-socket`), against the test server and nginx bound to
/// a socket in a temporary folder; and the paths that cannot be used, each a typed error before
/// any connection.
@Suite(.timeLimit(.minutes(5))) struct UnixSocketTests {
    static let trusting = ServerTrustEvaluator { _ in .trusted }

    /// A test server on a socket in a new temporary folder.
    static func withServer<Result>(
        _ configuration: LupineTestServer.Configuration = .init(),
        _ body: (LupineTestServer, String) async throws -> Result
    ) async throws -> Result {
        let socket = try temporaryFolder().appending(path: "server.sock").path
        var configuration = configuration
        configuration.unixSocketPath = socket
        return try await withTestServer(configuration.lenient) { server in
            try await body(server, socket)
        }
    }

    static func echoedHeaders(_ body: ByteBuffer) throws -> [String: String] {
        let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        return try #require(object?["headers"] as? [String: String])
    }

    @Test func anHTTPUnixURLReachesTheServerOnItsSocket() async throws {
        try await Self.withServer { server, socket in
            #expect(server.baseURL.scheme == "http+unix")
            #expect(server.baseURL.host(percentEncoded: false) == socket)
            let transport = NIOTransport()
            defer { Task { await transport.shutdown() } }
            let (response, body) = try await transport.get(server.baseURL.appending("/get"))
            #expect(response.status == .ok)
            #expect(try Self.echoedHeaders(body)["Host"] == "localhost")
        }
    }

    @Test func aConfiguredSocketCarriesOrdinaryURLsAndTheirHost() async throws {
        try await Self.withServer { _, socket in
            let manager = HTTPSessionManager(configuration: TransportConfiguration(unixSocketPath: socket))
            defer { manager.invalidateSession(cancelingTasks: true) }
            let got = try await manager.get("http://api.example.test/get?a=1")
            let headers = try #require((got.value as? [String: Any])?["headers"] as? [String: String])
            #expect(headers["Host"] == "api.example.test")
            let posted = try await manager.post("http://api.example.test/post", parameters: ["k": "v"])
            #expect(((posted.value as? [String: Any])?["form"] as? [String: String]) == ["k": "v"])
        }
    }

    @Test(arguments: [false, true]) func tlsRunsOverASocketInBothVersions(http2: Bool) async throws {
        try await Self.withServer(.init(tls: true, http2: http2)) { server, _ in
            #expect(server.baseURL.scheme == "https+unix")
            let transport = NIOTransport(configuration: TransportConfiguration(serverTrustEvaluator: Self.trusting))
            defer { Task { await transport.shutdown() } }
            let (response, _) = try await transport.get(server.baseURL.appending("/get"))
            #expect(response.status == .ok)
            #expect(response.version == (http2 ? HTTPVersion(major: 2, minor: 0) : .http1_1))
        }
    }

    enum Unusable: String, CaseIterable, CustomTestStringConvertible {
        case missing, directory, regularFile, tooLong, nobodyListening
        var testDescription: String { self.rawValue }
    }

    @Test(arguments: Unusable.allCases) func anUnusablePathIsATypedError(_ kind: Unusable) async throws {
        let folder = try temporaryFolder()
        let path: String
        let words: String
        switch kind {
        case .missing:
            (path, words) = (folder.appending(path: "none.sock").path, "does not exist")
        case .directory:
            (path, words) = (folder.path, "is a directory")
        case .regularFile:
            path = folder.appending(path: "file").path
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            words = "is not a socket"
        case .tooLong:
            (path, words) = (folder.appending(path: String(repeating: "s", count: 120)).path, "longer than the")
        case .nobodyListening:
            // A socket bound, never listened on, and closed: the file stays, nothing accepts.
            path = folder.appending(path: "dead.sock").path
            try Self.bindAndClose(path)
            words = "refused"
        }
        let transport = NIOTransport(configuration: TransportConfiguration(unixSocketPath: path))
        defer { Task { await transport.shutdown() } }
        await #expect {
            _ = try await transport.get(URL(string: "http://example.test/get")!)
        } throws: { error in
            guard case TransportError.unixSocketUnusable(let reported, let reason) = error else { return false }
            return reported == path && reason.contains(words)
        }
    }

    private static func bindAndClose(_ path: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
    }

    /// `lupine get --unix-socket` and `http+unix` against nginx bound to a socket: the same
    /// bytes as curl gets.
    @Test(.enabled(if: Nginx.isInstalled && Curl.isInstalled)) func theCommandLineReachesNginxOnASocketAsCurlDoes() async throws {
        let folder = try temporaryFolder()
        let socket = folder.appending(path: "nginx.sock").path
        let nginx = try await Nginx.start(
            in: folder,
            servers: "server { listen unix:\(socket); location / { return 200 \"over a socket: $host $request_uri\\n\"; } }",
            socket: socket
        )
        try await running {
            let curl = try await Curl.run(["-s", "--unix-socket", socket, "http://example.test/a?b=1"])
            let lupine = try await LupineCommandLineTests.lupine(["get", "http://example.test/a?b=1", "--unix-socket", socket, "--print", "b"])
            #expect(lupine.status == 0, "\(lupine.stderr)")
            #expect(Data(lupine.output) == curl.stdout)
            #expect(lupine.stdout == "over a socket: example.test /a?b=1\n")
            let encoded = try #require(socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let byURL = try await LupineCommandLineTests.lupine(["get", "http+unix://\(encoded)/x", "--print", "b"])
            #expect(byURL.stdout == "over a socket: localhost /x\n", "\(byURL.stderr)")
            let verbose = try await LupineCommandLineTests.lupine(["get", "http://example.test/v", "--unix-socket", socket, "-v"])
            #expect(verbose.stderr.contains("lupine: over the Unix domain socket \(socket)\n"), "\(verbose.stderr)")
            #expect(nginx.accessLog.count == 4)
        } thenAlways: {
            await nginx.stop()
        }
    }
}
