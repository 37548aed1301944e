import Foundation
import Lupine
import LupineTestServer
import NIOConcurrencyHelpers
import NIOCore
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

    /// A server may send an image's first byte on its own (here every byte is an HTTP chunk of its
    /// own): `0x89` alone could be text, so it must not decide that the PNG is.
    @Test(LupineSpinnerTests.needsScript)
    func anImageSentByteByByteIsStillSummarised() async throws {
        let screen = try await LupineSpinnerTests.lupineOnTerminal("get --print b '{server}/image/png?size=850x300&chunk=1'")
        #expect(screen.status == 0)
        #expect(screen.text.contains("PNG 850×300, "), "\(screen.text)")
        #expect(!screen.text.contains("IHDR") && !screen.text.contains("IDAT"))
    }

    @Test func aBodyIsToldTextOrBinaryOnItsFirst16BytesHoweverTheyAreCut() async throws {
        let png = try await Self.served("/image/png?size=850x300")
        let summary = "PNG 850×300, \(ProgressBar.bytes(Double(png.count)))\n"
        for cut in 1...BodyPrinter.sniffLength + 1 {
            #expect(try Self.shown([Array(png.prefix(cut)), Array(png.dropFirst(cut))]) == summary, "cut at \(cut)")
            #expect(try Self.shown((0..<cut).map { [png[$0]] } + [Array(png.dropFirst(cut))]) == summary, "\(cut) single bytes")
        }
        // Short text still comes out whole at the end, and text split finely stays text.
        #expect(try Self.shown([Array("h".utf8), Array("ello".utf8)]) == "hello\n")
        #expect(try Self.shown(Array("caf\u{E9} au lait, not an image\n".utf8).map { [$0] }) == "caf\u{E9} au lait, not an image\n")
        #expect(try Self.shown([]).isEmpty)
    }

    /// `BM` is all a BMP's signature is, and `GIF89a` reads as a word: text that starts so is
    /// still text unless the image header behind it is one.
    @Test func textThatStartsLikeAnImageSignatureIsShown() throws {
        for text in ["BMI is weight over height squared\n", "BM\n", "GIF89a is a format name\n", "RIFF and WEBP are words too\n"] {
            #expect(try Self.shown([Array(text.utf8)]) == text, "\(text)")
        }
        let gif: [UInt8] = Array("GIF89a".utf8) + [0x52, 0x03, 0x2C, 0x01]
        #expect(try Self.shown([gif]) == "GIF 850×300, 10 B\n")
    }

    @Test func aPipeGetsAnImageSentByteByByteUnchanged() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let outcome = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/image/png?size=300x200&chunk=1"])
        #expect(outcome.status == 0)
        #expect(outcome.output == (try await Self.served("/image/png?size=300x200")))
    }

    /// What a terminal gets from a ``BodyPrinter`` handed the body in `chunks`.
    static func shown(_ chunks: [[UInt8]]) throws -> String {
        let output = NIOLockedValueBox<[UInt8]>([])
        let printer = BodyPrinter { bytes in output.withLockedValue { $0 += bytes } }
        for chunk in chunks {
            try printer.print(ByteBuffer(bytes: chunk))
        }
        try printer.finish()
        return String(decoding: output.withLockedValue { $0 }, as: UTF8.self)
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
