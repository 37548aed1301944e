import Foundation
import LupineTestSupport
import Lupine
import NIOCore
import LupineTestServer
import Testing

@testable import LupineCLI

/// What `lupine get` puts on standard output: the exact bytes, streamed, when it is not a
/// terminal (here: a file); formatting only for a terminal.
@Suite struct LupineOutputTests {
    @Test func binaryBodiesReachAPipeByteForByte() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let random = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/bytes/100000"])
        #expect(random.status == 0)
        #expect(random.output == DeterministicBytes.bytes(in: 0..<100_000))

        let manager = HTTPSessionManager()
        let png = try await manager.response(for: Request(url: server.baseURL.appending(path: "image/png")), serializer: HTTPResponseSerializer())
        let printed = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/image/png"])
        #expect(printed.output == png.data)
        manager.invalidateSession(cancelingTasks: true)
    }

    @Test func textIsNotGivenANewline() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/range/26"])
        #expect(outcome.output == Array("abcdefghijklmnopqrstuvwxyz".utf8))
    }

    @Test func aLargeBodyStreamsWithFlatMemory() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let length = 128 * 1024 * 1024
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // GNU time forks lupine from a small process and reports its own peak memory.
        let peak = folder.appending(path: "peak")
        let process = try ChildProcess.start(
            URL(fileURLWithPath: "/usr/bin/time"),
            ["-f", "%M", "-o", peak.path, LupineCommandLineTests.executable.path, "get", server.baseURL.absoluteString + "/bytes/\(length)"],
            in: folder,
            stdout: folder.appending(path: "body"),
            stderr: folder.appending(path: "stderr")
        )
        let exit = await process.wait()
        #expect(exit.status == 0)
        let peakKiB = try #require(Int(String(decoding: try Data(contentsOf: peak), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(FileDownloadProbe.size(of: folder.appending(path: "body")) == length)
        let body = folder.appending(path: "body")
        let (expected, received) = try await onOwnThread {
            (LupineDownloadInterruptionTests.sha256(ofDeterministicBytes: length), try LupineDownloadInterruptionTests.sha256(of: body))
        }
        #expect(received == expected)
        // The body is 128 MiB; a process holding it (or several copies, as before) is far above
        // this. (Under a sanitizer the peak is mostly its shadow memory: measured in the plain run.)
        #expect(Sanitizers.isActive || peakKiB < 96 * 1024, "peak \(peakKiB) KiB")
    }

    @Test func anUnknownPrintSelectionIsRefused() async throws {
        let outcome = try await LupineCommandLineTests.lupine(["get", "127.0.0.1:9/get", "--print", "xyz"])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("--print takes letters of HBhb"))
        #expect(outcome.output.isEmpty)
    }

    @Test func aTerminalGetsPrettyJSONAndANewline() throws {
        let json = try Self.printed([#"{"b":1,"#, #""a":[true]}"#], contentType: "application/json")
        #expect(String(decoding: json, as: UTF8.self) == "{\n  \"a\" : [\n    true\n  ],\n  \"b\" : 1\n}\n")
        let text = try Self.printed(["hello", " world"], contentType: "text/plain")
        #expect(text == Array("hello world\n".utf8))
    }

    @Test func aTerminalGetsNoBinaryAndNoEscapeSequences() throws {
        let binary = try Self.printed([String(decoding: [0x89, 0x50, 0x4E, 0x47, 0x00, 0x01], as: UTF8.self)], contentType: "image/png")
        #expect(String(decoding: binary, as: UTF8.self).hasPrefix("[binary body of "))
        let hostile = try Self.printed(["title\u{1B}]0;owned\u{07} ok\n"], contentType: "text/plain")
        #expect(hostile == Array("title.]0;owned. ok\n".utf8))
        // A UTF-8 character cut by a chunk boundary is still text.
        let cut = Array("é".utf8)
        #expect(!BodyPrinter.looksBinary(Array("abc".utf8) + [cut[0]]))
    }

    @Test func terminalTextShowsNoControlsEvenAcrossChunks() throws {
        #expect(TerminalText.sanitized("a\u{9B}[2Jb\rc\r\nd\u{202E}e\u{7F}\tf") == "a.[2Jb.c\r\nd.e.\tf")
        var terminal = TerminalText()
        // C1 U+009B cut between chunks, then a CR whose LF comes in the next chunk.
        var shown = terminal.show([0x61, 0xC2])
        shown += terminal.show([0x9B, 0x62, 0x0D])
        shown += terminal.show([0x0A, 0xFF])
        shown += terminal.finish()
        #expect(shown == Array("a.b\r\n.".utf8))
        let json = try Self.printed([#"{"a":"\u009bx\u0007"}"#], contentType: "application/json")
        // JSON writes BEL escaped (harmless); U+009B it writes raw, so it is shown as ".".
        #expect(String(decoding: json, as: UTF8.self) == "{\n  \"a\" : \".x\\u0007\"\n}\n")
        let overwrite = try Self.printed(["Password OK\rDENIED"], contentType: "text/plain")
        #expect(overwrite == Array("Password OK.DENIED\n".utf8))
    }

    /// What a terminal printer writes for `chunks` of a body of `contentType`.
    private static func printed(_ chunks: [String], contentType: String) throws -> [UInt8] {
        let written = Recorder<[UInt8]>()
        let printer = BodyPrinter { written.append($0) }
        printer.begin(try ResponseHead(status: .ok, headers: ["Content-Type": contentType], url: #require(URL(string: "http://x/"))))
        for chunk in chunks {
            try printer.print(ByteBuffer(bytes: Array(chunk.utf8)))
        }
        try printer.finish()
        return written.all.flatMap { $0 }
    }
}
