import Foundation
import Lupine
import LupineTestSupport
import LupineTestServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@testable import LupineCLI

/// The `lupine` executable, run as a separate process against an in-process test server.
@Suite struct LupineCommandLineTests {
    struct Outcome: Sendable {
        let status: Int32
        /// Standard output, byte for byte.
        let output: [UInt8]
        let stderr: String

        /// Standard output as text.
        var stdout: String { String(decoding: self.output, as: UTF8.self) }
    }

    /// Runs the `lupine` binary built next to this test bundle to its end, in `directory` (a new
    /// temporary folder when `nil`).
    static func lupine(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) async throws -> Outcome {
        let running = try Self.start(arguments, in: directory, environment: environment)
        return try await running.finish()
    }

    /// A `lupine` process started by ``start(_:in:)``.
    struct Running: Sendable {
        let process: ChildProcess
        let stdout: URL
        let stderr: URL

        /// Runs `steps` while the process runs; should they throw, the process is killed and
        /// reaped before the error goes on, so a failed test leaves no process behind.
        func whileRunning(_ steps: () async throws -> Void) async throws {
            do {
                try await steps()
            } catch {
                self.process.send(SIGKILL)
                _ = await self.process.wait()
                throw error
            }
        }

        /// Waits for the process to end and collects what it wrote.
        func finish() async throws -> Outcome {
            let exit = await self.process.wait()
            defer {
                try? FileManager.default.removeItem(at: self.stdout.deletingLastPathComponent())
            }
            return Outcome(
                status: exit.status,
                output: Array(try Data(contentsOf: self.stdout)),
                stderr: String(decoding: try Data(contentsOf: self.stderr), as: UTF8.self)
            )
        }
    }

    /// Starts `lupine` in `directory` (a new temporary folder when `nil`), with this process's
    /// environment less any proxy setting (the machine's would take loopback requests elsewhere),
    /// plus `environment`; its output goes to files in a folder of its own.
    static func start(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws -> Running {
        let outputs = try temporaryFolder()
        let stdout = outputs.appending(path: "stdout")
        let stderr = outputs.appending(path: "stderr")
        let proxyVariables: Set = ["http_proxy", "https_proxy", "all_proxy", "no_proxy"]
        var variables = ProcessInfo.processInfo.environment.filter { !proxyVariables.contains($0.key.lowercased()) }
        variables.merge(environment) { $1 }
        let process = try ChildProcess.start(
            Self.executable,
            arguments,
            in: directory ?? outputs,
            stdout: stdout,
            stderr: stderr,
            environment: variables
        )
        return Running(process: process, stdout: stdout, stderr: stderr)
    }

    /// The `lupine` binary built next to this test bundle.
    static var executable: URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = directory.appendingPathComponent("lupine")
        // `swift test` runs the bundle from inside `LupinePackageTests.xctest/…` on some layouts.
        return FileManager.default.fileExists(atPath: beside.path) ? beside : directory.deletingLastPathComponent().appendingPathComponent("lupine")
    }

    static func json(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    @Test func getSendsQueryItemsAndHeaders() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await Self.lupine(["get", server.baseURL.absoluteString + "/get", "a==1", "X-Test:yes"])
        #expect(outcome.status == 0)
        let json = try #require(Self.json(outcome.stdout))
        #expect((json["args"] as? [String: Any])?["a"] as? String == "1")
        #expect((json["headers"] as? [String: Any])?["X-Test"] as? String == "yes")
        // A Host item is sent, and -v shows it as the one Host, as curl -H 'Host: …' does.
        let virtual = try await Self.lupine(["get", server.baseURL.absoluteString + "/headers", "Host:vhost.example", "-v"])
        #expect((Self.json(virtual.stdout)?["headers"] as? [String: Any])?["Host"] as? String == "vhost.example")
        #expect(virtual.stderr.split(separator: "\n").filter { $0.lowercased().hasPrefix("host:") } == ["Host: vhost.example"], "\(virtual.stderr)")
        // Without one, -v shows the URL's as it is sent: IPv6 in brackets, no default port.
        let shown = try ["http://[::1]:8080/x", "http://127.0.0.1:80/x", "https://h.example:443/"].map { address in
            try ExchangeFormatter.requestHead(Request(url: #require(URL(string: address)))).split(separator: "\n")[1]
        }
        #expect(shown == ["Host: [::1]:8080", "Host: 127.0.0.1", "Host: h.example"])
    }

    /// httpie's header items: a repeated name sends each value, `Name:` removes the header (a
    /// default one too, and an empty `Host:` leaves the URL's), `Name;` sends it empty.
    @Test func headerItemsRepeatRemoveAndSendEmpty() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let url = server.baseURL.absoluteString + "/headers"
        let outcome = try await Self.lupine(["get", url, "X-Multi:1", "x-multi:2", "User-Agent:", "X-Empty;", "Host:", "-v"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let headers = try #require(Self.json(outcome.stdout)?["headers"] as? [String: String])
        #expect(headers["X-Multi"] == "1,2")
        #expect(headers["User-Agent"] == nil)
        #expect(headers["X-Empty"] == "")
        #expect(headers["Host"] == "\(server.baseURL.host() ?? ""):\(server.baseURL.port ?? 0)")
        let shown = outcome.stderr.split(separator: "\n").filter { ["x-multi", "x-empty"].contains($0.lowercased().prefix(7)) }
        #expect(shown == ["X-Multi: 1", "x-multi: 2", "X-Empty: "], "\(outcome.stderr)")
        let removedAfterGiven = try await Self.lupine(["get", url, "X-Gone:1", "X-Gone:", "X-Back:1", "X-Back:", "X-Back:2"])
        let after = try #require(Self.json(removedAfterGiven.stdout)?["headers"] as? [String: String])
        #expect(after["X-Gone"] == nil && after["X-Back"] == "2")
        let refused = try await Self.lupine(["get", url, "X-Empty;oops"])
        #expect(refused.status != 0 && refused.stderr.contains("Header;"), "\(refused.stderr)")
    }

    /// `Content-Type:` and `Accept:` remove what a JSON body would add; two Host items are
    /// refused; `-v` shows the head as the server gets it, framing and Accept-Encoding included.
    @Test func verboseShowsTheHeadAsSentAndItemsRemoveBodyDefaults() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let url = server.baseURL.absoluteString + "/anything"
        let outcome = try await Self.lupine(["post", url, "a=1", "Content-Type:", "Accept:", "Content-Length:1", "Transfer-Encoding:chunked", "-v"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let received = try #require(Self.json(outcome.stdout)?["headers"] as? [String: String])
        #expect(received["Content-Type"] == nil && received["Accept"] == nil)
        let shown = outcome.stderr.split(separator: "\n\n")[0].split(separator: "\n").dropFirst().map { line in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            return (String(line[..<colon]), line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
        }
        #expect(Dictionary(shown, uniquingKeysWith: { $1 }) == received, "\(outcome.stderr)")
        #expect(shown.contains { $0 == ("Content-Length", "9") } && shown.contains { $0 == ("Accept-Encoding", "gzip, deflate, br, zstd") })
        let twoHosts = try await Self.lupine(["get", url, "Host:a.example", "Host:b.example"])
        #expect(twoHosts.status == 1 && twoHosts.stderr.contains("given more than once"), "\(twoHosts.stderr)")
        // Accept-Encoding: removed, the transport asks for none (and -v shows none).
        let plain = try await Self.lupine(["get", url, "Accept-Encoding:", "-v"])
        #expect((Self.json(plain.stdout)?["headers"] as? [String: String])?["Accept-Encoding"] == nil, "\(plain.stdout)")
        #expect(!plain.stderr.contains("Accept-Encoding"), "\(plain.stderr)")
    }

    /// A redirect that cannot be followed (a body read once, from a FIFO) sends nothing more, so
    /// `-v` shows no request for it.
    @Test func verboseShowsNoRequestForARedirectNotFollowed() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let fifo = sandbox.work.appending(path: "once")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        Thread.detachNewThread {
            let descriptor = open(fifo.path, O_WRONLY)
            _ = write(descriptor, "data", 4)
            close(descriptor)
        }
        // Should lupine never open the FIFO, a reader of our own releases the writer's open.
        defer { close(open(fifo.path, O_RDONLY | O_NONBLOCK)) }
        let url = server.baseURL.absoluteString + "/redirect-to?url=/post&status_code=307"
        let outcome = try await Self.lupine(["post", url, "f@once", "-v"], in: sandbox.work)
        #expect(outcome.status == 1 && outcome.stderr.contains("cannot be followed"), "\(outcome.stderr)")
        #expect(outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("POST ") }.count == 1, "\(outcome.stderr)")
    }

    @Test func postSendsJSONFields() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await Self.lupine(["post", server.baseURL.absoluteString + "/post", "--json", "n:=1", "s=x"])
        #expect(outcome.status == 0)
        let echoed = try #require(Self.json(outcome.stdout)?["json"] as? [String: Any])
        #expect(echoed["n"] as? Int == 1)
        #expect(echoed["s"] as? String == "x")
    }

    @Test func postSendsAFormWithForm() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await Self.lupine(["post", server.baseURL.absoluteString + "/post", "--form", "s=x y"])
        let form = try #require(Self.json(outcome.stdout)?["form"] as? [String: Any])
        #expect(form["s"] as? String == "x y")
    }

    @Test(arguments: [(404, Int32(4)), (500, Int32(5)), (200, Int32(0))])
    func checkStatusMapsTheStatusClassToTheExitCode(status: Int, exitCode: Int32) async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await Self.lupine(["get", server.baseURL.absoluteString + "/status/\(status)", "--check-status"])
        #expect(outcome.status == exitCode)
    }

    @Test func basicAuthAndVerboseHeads() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await Self.lupine(["get", server.baseURL.absoluteString + "/basic-auth/u/p", "--auth", "u:p", "-v"])
        #expect(outcome.status == 0)
        // The heads go to stderr, as the help says; stdout keeps the body alone.
        #expect(outcome.stderr.contains("HTTP/1.1 200 OK"))
        #expect(outcome.stderr.contains("Authorization: <redacted>"))
        #expect(!outcome.stderr.contains("u:p"))
        #expect(Self.json(outcome.stdout)?["authenticated"] as? Bool == true)
    }

    @Test func failuresAreOneLineOnStderrWithANonZeroExit() async throws {
        let closed = try ClosedPort()
        let url = closed.url.absoluteString
        let refused = try await Self.lupine(["get", url + "/get"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("lupine: "))
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(refused.stdout.isEmpty)

        let badJSON = try await Self.lupine(["post", url + "/post", "n:={oops"])
        #expect(badJSON.status != 0)
        #expect(badJSON.stderr.split(separator: "\n").count == 1)
    }

    @Test func tooManyRedirectsExitsWithSix() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await Self.lupine(["get", server.baseURL.absoluteString + "/redirect/3", "--max-redirects", "1"])
        #expect(outcome.status == 6)
    }

    @Test(arguments: ["Xé:1", "X-A:1\r\nInjected: 2", "X-B:a\u{1}b", "Bad Name:1"])
    func anInvalidHeaderItemIsRefusedBeforeSending(item: String) async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await Self.lupine(["get", server.baseURL.absoluteString + "/get", item])
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(outcome.stderr.hasPrefix("lupine: Invalid header \""), "\(outcome.stderr)")
        #expect(outcome.stderr.split(separator: "\n").count == 1)
        #expect(server.connections.accepted == 0)
    }

    @Test func anInvalidURLNeverEchoesItsPassword() async throws {
        let outcome = try await Self.lupine(["get", "http://alice:s3cret@[::1"])
        #expect(outcome.status == 1)
        #expect(!outcome.stderr.contains("s3cret"), "\(outcome.stderr)")
        #expect(outcome.stderr.split(separator: "\n").count == 1)
    }

    @Test func anUnparsableLocationIsAnError() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await Self.lupine(["get", server.baseURL.absoluteString + "/redirect-to?url=http%3A%2F%2F%5B%3A%3A1"])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.hasPrefix("lupine: ") && outcome.stderr.split(separator: "\n").count == 1, "\(outcome.stderr)")
        #expect(outcome.output.isEmpty)
    }
}
