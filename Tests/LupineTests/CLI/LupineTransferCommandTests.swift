import Foundation
import Lupine
import LupineTestServer
import Testing

/// `lupine post … field@file`, `lupine download` (with `--continue`) and `lupine demo`, run as
/// separate processes against an in-process test server.
@Suite struct LupineTransferCommandTests {
    @Test func postWithAFileItemSendsMultipart() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let file = try temporaryFolder().appending(path: "hello.txt")
        try Data("hello from a file\n".utf8).write(to: file)
        let outcome = try await LupineCommandLineTests.lupine(["post", server.baseURL.absoluteString + "/post", "doc@\(file.path)", "title=Greeting"])
        #expect(outcome.status == 0)
        let json = try #require(LupineCommandLineTests.json(outcome.stdout))
        #expect((json["files"] as? [String: Any])?["doc"] as? String == "hello from a file\n")
        #expect((json["form"] as? [String: Any])?["title"] as? String == "Greeting")
        #expect(((json["headers"] as? [String: Any])?["Content-Type"] as? String)?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    @Test func postWithAMissingFileFailsBeforeSending() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await LupineCommandLineTests.lupine(["post", server.baseURL.absoluteString + "/post", "doc@/no/such/file.txt"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("does not exist"))
        #expect(outcome.stderr.split(separator: "\n").count == 1)
        #expect(server.connections.accepted == 0)
    }

    @Test func downloadSavesTheBody() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let file = try temporaryFolder().appending(path: "body.bin")
        let outcome = try await LupineCommandLineTests.lupine(["download", server.baseURL.absoluteString + "/bytes/200000", "-o", file.path])
        #expect(outcome.status == 0)
        #expect(Array(try Data(contentsOf: file)) == DeterministicBytes.bytes(in: 0..<200_000))
        #expect(outcome.stderr.contains("Saved"))
    }

    @Test func anInterruptedDownloadContinuesWithContinue() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let folder = try temporaryFolder()
        let file = folder.appending(path: "big.bin")
        let url = server.faultsBaseURL.absoluteString + "/interrupt?bytes=1000000&at=345678"
        let first = try await LupineCommandLineTests.lupine(["download", url, "-o", file.path])
        #expect(first.status == 1)
        #expect(first.stderr.contains("--continue"))
        #expect((try FileManager.default.attributesOfItem(atPath: file.path))[.size] as? Int == 345_678)
        // The validator is kept beside the file, so the continuation is sent with If-Range.
        let saved = try ResumeData(encoded: Array(try Data(contentsOf: folder.appending(path: "big.bin.lupine-resume"))))
        #expect(saved.entityTag == "\"interrupt-1000000\"")
        let second = try await LupineCommandLineTests.lupine(["download", url, "-o", file.path, "--continue"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("(resumed)"))
        #expect(Array(try Data(contentsOf: file)) == DeterministicBytes.bytes(in: 0..<1_000_000))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["big.bin"])
    }

    @Test func continueWithoutResumeDataSendsRangeAlone() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let file = try temporaryFolder().appending(path: "partial.bin")
        try Data(DeterministicBytes.bytes(in: 0..<4000)).write(to: file)
        let outcome = try await LupineCommandLineTests.lupine(["download", server.baseURL.absoluteString + "/bytes/10000", "-o", file.path, "--continue"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("(resumed)"))
        #expect(Array(try Data(contentsOf: file)) == DeterministicBytes.bytes(in: 0..<10_000))
    }

    @Test func downloadOfAnErrorPageExitsWithTheStatusClass() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let file = try temporaryFolder().appending(path: "missing.bin")
        let outcome = try await LupineCommandLineTests.lupine(["download", server.baseURL.absoluteString + "/status/404", "-o", file.path])
        #expect(outcome.status == 4)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func theDemoRunsToTheEnd() async throws {
        let outcome = try await LupineCommandLineTests.lupine(["demo"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("SHA-256 matches"))
        #expect(outcome.stdout.contains("Tour complete"))
    }
}
