import Foundation
import LupineTestServer
import Testing

/// The `lupine` executable, run as a separate process against an in-process test server.
@Suite struct LupineCommandLineTests {
    struct Outcome: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the `lupine` binary built next to this test bundle, on a thread of its own so that
    /// waiting for it never blocks the concurrency pool the in-process server answers on.
    static func lupine(_ arguments: [String]) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try Self.runBlocking(arguments) })
            }.start()
        }
    }

    /// The `lupine` binary built next to this test bundle.
    static var executable: URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = directory.appendingPathComponent("lupine")
        // `swift test` runs the bundle from inside `LupinePackageTests.xctest/…` on some layouts.
        return FileManager.default.fileExists(atPath: beside.path) ? beside : directory.deletingLastPathComponent().appendingPathComponent("lupine")
    }

    private static func runBlocking(_ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self)
        )
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
        #expect(outcome.stdout.contains("HTTP/1.1 200 OK"))
        #expect(outcome.stdout.contains("Authorization: <redacted>"))
        #expect(outcome.stdout.contains("\"authenticated\""))
    }

    @Test func failuresAreOneLineOnStderrWithANonZeroExit() async throws {
        let server = try await LupineTestServer.start()
        let url = server.baseURL.absoluteString
        await server.stop()
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
}
