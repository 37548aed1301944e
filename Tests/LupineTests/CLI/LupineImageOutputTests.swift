import Foundation
import Lupine
import LupineTestServer
import Testing

@testable import LupineCLI

/// `lupine get` of an image: a terminal (a real pty from script(1)) gets one summary line, never
/// the bytes; a file or a pipe gets the bytes unchanged.
@Suite struct LupineImageOutputTests {
    @Test(
        LupineSpinnerTests.needsScript,
        arguments: [
            ("/image/png?size=850x300", "PNG 850×300, "), ("/image/jpeg", "JPEG 16×16, 317 B"),
            ("/image/webp", "WEBP 16×16, 62 B"), ("/image/gif", "GIF 16×16, "),
        ])
    func aTerminalGetsAOneLineSummaryOfAnImage(path: String, summary: String) async throws {
        let screen = try await LupineSpinnerTests.lupineOnTerminal("get --print b {server}\(path)")
        #expect(screen.status == 0)
        #expect(screen.text.contains(summary), "\(screen.text)")
        #expect(screen.text.split(separator: "\n", omittingEmptySubsequences: true).count == 1)
        #expect(!screen.text.contains("IHDR") && !screen.text.contains("JFIF") && !screen.text.contains("VP8L"))
    }

    @Test(LupineSpinnerTests.needsScript)
    func aFileGetsTheImageUnchanged() async throws {
        let screen = try await LupineSpinnerTests.lupineOnTerminal("get {server}/image/png?size=850x300 > image.png", reading: "image.png")
        #expect(screen.status == 0)
        #expect(!screen.text.contains("PNG 850"))
        let expected = try await Self.served("/image/png?size=850x300")
        #expect(screen.file.map(Array.init) == expected)
    }

    @Test func aPipeGetsTheImageUnchanged() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/image/jpeg"])
        #expect(outcome.status == 0)
        #expect(outcome.output == (try await Self.served("/image/jpeg")))
    }

    @Test func theSummaryNamesAnImageAndFallsBackForOtherBytes() {
        let gif: [UInt8] = Array("GIF89a".utf8) + [0x52, 0x03, 0x2C, 0x01]
        #expect(BodyPrinter.imageSummary(gif, count: 4300) == "GIF 850×300, 4.2 KiB")
        #expect(BodyPrinter.imageSummary([0x89, 0x50, 0x4E, 0x47], count: 4) == nil)
        #expect(BodyPrinter.imageSummary([0, 1, 2, 3], count: 4) == nil)
    }

    /// The bytes the test server sends for `path`, fetched over loopback.
    static func served(_ path: String) async throws -> [UInt8] {
        try await withServerAndTransport { server, transport in
            let (_, body) = try await transport.get(server.baseURL.appending(path))
            return Array(body.readableBytesView)
        }
    }
}
