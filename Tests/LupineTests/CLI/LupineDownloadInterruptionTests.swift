import Crypto
import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An interrupted `lupine download` keeps its bytes where `--continue` finds them, whatever
/// stopped it: a signal to the real process (SIGINT, SIGTERM, SIGKILL) or a cut connection,
/// with or without a validator.
@Suite struct LupineDownloadInterruptionTests {
    static let length = 1_000_000
    static let cut = 400_000

    @Test(arguments: [SIGINT, SIGTERM, SIGKILL])
    func aSignalMidBodyKeepsTheBytesForContinue(signal: Int32) async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let file = sandbox.work.appending(path: "big.bin")
        let url = server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(Self.length)&at=\(Self.cut)"
        // The server sends `cut` bytes, then holds the connection open in silence.
        let running = try LupineCommandLineTests.start(["download", url + "&then=stall", "-o", "big.bin"], in: sandbox.work)
        try await running.whileRunning { try await Self.waitUntil(file, holds: Self.cut) }
        running.process.send(signal)
        let stopped = try await running.finish()
        #expect(stopped.status == 128 + signal)
        if signal != SIGKILL {
            #expect(stopped.stderr.contains("--continue"), "\(stopped.stderr)")
        }
        #expect(FileDownloadProbe.size(of: file) == Self.cut)
        let record = sandbox.work.appending(path: "big.bin.lupine-resume")
        #expect(try ResumeData(encoded: Array(Data(contentsOf: record))).entityTag == "\"interrupt-\(Self.length)\"")

        // The same URL: a record is never lent to another (the server answers a range whole).
        let continued = try await LupineCommandLineTests.lupine(["download", url + "&then=stall", "-o", "big.bin", "--continue", "-v"], in: sandbox.work)
        #expect(continued.status == 0, "\(continued.stderr)")
        #expect(continued.stderr.contains("(resumed)"))
        // -v shows the request as sent, with what the continuation added.
        #expect(continued.stderr.contains("Range: bytes=\(Self.cut)-") && continued.stderr.contains("If-Range: \"interrupt-\(Self.length)\""), "\(continued.stderr)")
        #expect(try Self.sha256(of: file) == Self.expectedDigest)
        #expect(try sandbox.workContents() == ["big.bin"])
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aCutTransferWithoutValidatorKeepsItsBytes() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let file = sandbox.work.appending(path: "plain.bin")
        let url = server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(Self.length)&at=\(Self.cut)&etag=none"
        let cut = try await LupineCommandLineTests.lupine(["download", url, "-o", "plain.bin"], in: sandbox.work)
        #expect(cut.status == 1)
        #expect(cut.stderr.contains("--continue"), "\(cut.stderr)")
        #expect(FileDownloadProbe.size(of: file) == Self.cut)
        // No validator, no record: the continuation sends Range alone, as curl -C - does.
        #expect(try sandbox.workContents() == ["plain.bin"])
        let continued = try await LupineCommandLineTests.lupine(["download", url, "-o", "plain.bin", "--continue"], in: sandbox.work)
        #expect(continued.status == 0, "\(continued.stderr)")
        #expect(try Self.sha256(of: file) == Self.expectedDigest)
    }

    @Test func aRecordOfAnotherURLOrOneThatCannotBeReadStopsContinue() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let file = sandbox.work.appending(path: "part.bin")
        let record = sandbox.work.appending(path: "part.bin.lupine-resume")
        let url = server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(Self.length)&at=\(Self.cut)"
        _ = try await LupineCommandLineTests.lupine(["download", url, "-o", "part.bin"], in: sandbox.work)
        #expect(FileManager.default.fileExists(atPath: record.path))
        // Another URL stops --continue, whatever it serves: another resource, and one whose
        // server gives the same entity tag (issue 30: that one was continued). The bytes stay.
        let other = server.baseURL.absoluteString + "/bytes/\(Self.length / 2)"
        let sameTag = url.replacingOccurrences(of: "at=\(Self.cut)", with: "at=\(Self.cut + 1)")
        for another in [other, sameTag] {
            let refused = try await LupineCommandLineTests.lupine(["download", another, "-o", "part.bin", "--continue"], in: sandbox.work)
            #expect(refused.status == 1 && refused.stderr.contains("holds the start of") && !refused.stderr.contains("(resumed)"), "\(refused.stderr)")
            #expect(FileDownloadProbe.size(of: file) == Self.cut)
        }
        // The same URL written another way (the scheme's case, a fragment) is the same URL.
        let sameURL = "HTTP" + url.dropFirst("http".count) + "#part"
        let continued = try await LupineCommandLineTests.lupine(["download", sameURL, "-o", "part.bin", "--continue"], in: sandbox.work)
        #expect(continued.status == 0 && continued.stderr.contains("(resumed)"), "\(continued.stderr)")
        #expect(try Self.sha256(of: file) == Self.expectedDigest)
        // A record that is not resume data, or whose validator cannot be a header, says nothing
        // of whose bytes the file holds (it may be another URL's, a newer Lupine's): refused,
        // the bytes kept; without the record the file is continued by Range alone, as curl -C -.
        let forged = ResumeData(url: try #require(URL(string: url)), entityTag: "\"a\"\r\nX-Injected: 1", bytesReceived: 0, temporaryFileURL: file)
        for bad in [Data("not a record".utf8), Data(forged.encoded())] {
            _ = try await LupineCommandLineTests.lupine(["download", url, "-o", "part.bin"], in: sandbox.work)
            try bad.write(to: record)
            let kept = FileDownloadProbe.size(of: file)
            let refused = try await LupineCommandLineTests.lupine(["download", url, "-o", "part.bin", "--continue"], in: sandbox.work)
            #expect(refused.status == 1 && refused.stderr.contains("is not a resume record Lupine can read"), "\(refused.stderr)")
            #expect(FileDownloadProbe.size(of: file) == kept)
            try FileManager.default.removeItem(at: record)
            let continued = try await LupineCommandLineTests.lupine(["download", url, "-o", "part.bin", "--continue"], in: sandbox.work)
            #expect(continued.status == 0, "\(continued.stderr)")
            #expect(try Self.sha256(of: file) == Self.expectedDigest)
        }
        #expect(sandbox.unchangedOutsideWork())
    }

    @Test func aNewBodyThatNeverComesKeepsTheRecordOfTheBytesThere() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let file = sandbox.work.appending(path: "v.bin")
        let url = server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(Self.length)&at=\(Self.cut)"
        _ = try await LupineCommandLineTests.lupine(["download", url, "-o", "v.bin"], in: sandbox.work)
        // Another representation (another ETag): a 200 head, then a close before any byte.
        let changed = server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(Self.length - 1)&at=0"
        let cut = try await LupineCommandLineTests.lupine(["download", changed, "-o", "v.bin", "--continue"], in: sandbox.work)
        #expect(cut.status == 1, "\(cut.stderr)")
        #expect(FileDownloadProbe.size(of: file) == Self.cut)
        // The record still guards these bytes: continuing them is checked, and comes out whole.
        let continued = try await LupineCommandLineTests.lupine(["download", url, "-o", "v.bin", "--continue"], in: sandbox.work)
        #expect(continued.status == 0 && continued.stderr.contains("(resumed)"), "\(continued.stderr)")
        #expect(try Self.sha256(of: file) == Self.expectedDigest)
    }

    @Test func aRangeOfAnotherRepresentationThenAnErrorPageKeepsTheRecord() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let record = sandbox.work.appending(path: "r.bin.lupine-resume")
        let url = server.faultsBaseURL.absoluteString + "/interrupt?bytes=1000&at=400"
        _ = try await LupineCommandLineTests.lupine(["download", url, "-o", "r.bin"], in: sandbox.work)
        let bytes = try Data(contentsOf: sandbox.work.appending(path: "r.bin"))
        var saved = Data()
        try await ScriptedServer.with { scripted in
            // The record names the scripted server's URL: a record of another URL stops --continue.
            saved = try Self.claim(record, for: scripted.url.absoluteString + "/r.bin")
            let running = try LupineCommandLineTests.start(["download", scripted.url.absoluteString + "/r.bin", "-o", "r.bin", "--continue"], in: sandbox.work)
            try await running.whileRunning {
                // A server that ignores If-Range: the rest of another version, then an error page.
                let connection = try await scripted.nextConnection()
                _ = await connection.readRequestHead()
                try await connection.write("HTTP/1.1 206 Partial Content\r\nETag: \"other\"\r\nContent-Range: bytes 400-999/1000\r\nContent-Length: 600\r\n\r\n")
                try await connection.write(String(repeating: "x", count: 600))
                var next = connection
                if await next.readRequestHead() == nil {
                    next = try await scripted.nextConnection()
                    _ = await next.readRequestHead()
                }
                try await next.write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbusy")
            }
            let outcome = try await running.finish()
            #expect(outcome.status != 0, "\(outcome.stderr)")
        }
        // The bytes are still those of the record's version, and the record still says so.
        #expect(try Data(contentsOf: sandbox.work.appending(path: "r.bin")) == bytes)
        #expect(try Data(contentsOf: record) == saved)
        // The same, answered whole as a 206 from byte 0: saved, and not called resumed.
        try await ScriptedServer.with { scripted in
            _ = try Self.claim(record, for: scripted.url.absoluteString + "/r.bin")
            let running = try LupineCommandLineTests.start(["download", scripted.url.absoluteString + "/r.bin", "-o", "r.bin", "--continue"], in: sandbox.work)
            try await running.whileRunning {
                var connection = try await scripted.nextConnection()
                for start in [400, 0] {
                    if await connection.readRequestHead() == nil {
                        connection = try await scripted.nextConnection()
                        _ = await connection.readRequestHead()
                    }
                    let head = "HTTP/1.1 206 Partial Content\r\nETag: \"other\"\r\nContent-Range: bytes \(start)-999/1000\r\n"
                    try await connection.write(head + "Content-Length: \(1000 - start)\r\n\r\n" + String(repeating: "x", count: 1000 - start))
                }
            }
            let outcome = try await running.finish()
            #expect(outcome.status == 0 && !outcome.stderr.contains("(resumed)"), "\(outcome.stderr)")
        }
        #expect(try Data(contentsOf: sandbox.work.appending(path: "r.bin")) == Data(repeating: UInt8(ascii: "x"), count: 1000))
    }

    /// Rewrites the resume record at `record` to name `url`, with the validator and bytes it
    /// had; returns what it now holds.
    static func claim(_ record: URL, for url: String) throws -> Data {
        let kept = try ResumeData(encoded: Array(Data(contentsOf: record)))
        let claimed = ResumeData(
            url: try #require(URL(string: url)), entityTag: kept.entityTag, lastModified: kept.lastModified, bytesReceived: kept.bytesReceived, temporaryFileURL: kept.temporaryFileURL)
        let data = Data(claimed.encoded())
        try data.write(to: record)
        return data
    }

    /// An empty answer to `--continue` (here a `204`) does not cut the file to nothing: it fails,
    /// and the bytes and their record stay for a later `--continue`.
    @Test func anEmptyAnswerToContinueKeepsTheBytes() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let url = server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(Self.length)&at=\(Self.cut)"
        _ = try await LupineCommandLineTests.lupine(["download", url, "-o", "e.bin"], in: sandbox.work)
        // The record names the URL that answers empty: a record of another URL stops --continue.
        let record = sandbox.work.appending(path: "e.bin.lupine-resume")
        let noContent = server.baseURL.absoluteString + "/status/204"
        let file = sandbox.work.appending(path: "e.bin")
        let claimed = ResumeData(url: try #require(URL(string: noContent)), entityTag: "\"e\"", bytesReceived: Self.cut, temporaryFileURL: file)
        try Data(claimed.encoded()).write(to: record)
        let (bytes, saved) = (try Data(contentsOf: file), try Data(contentsOf: record))
        let empty = try await LupineCommandLineTests.lupine(["download", noContent, "-o", "e.bin", "--continue"], in: sandbox.work)
        #expect(empty.status == 1 && empty.stderr.contains("the \(Self.cut) bytes already received are kept"), "\(empty.stderr)")
        #expect(try Data(contentsOf: sandbox.work.appending(path: "e.bin")) == bytes)
        #expect(try Data(contentsOf: record) == saved)
        #expect(sandbox.unchangedOutsideWork())
    }

    /// A server that compresses the body although the download asked for none: cut, its bytes
    /// cannot be continued by a range of the encoded body, so no record is kept and no
    /// `--continue` is offered (before, it was, and every continuation failed to inflate).
    @Test func aCompressedBodyThatIsCutIsNotOfferedToContinue() async throws {
        let sandbox = try Sandbox()
        // `lupine ` 20,000 times, gzipped (249 bytes); 100 of them inflate to 44,126 bytes.
        let gzipped = try #require(Data(base64Encoded: Self.gzippedWords))
        try await ScriptedServer.with { scripted in
            let running = try LupineCommandLineTests.start(["download", scripted.url.absoluteString + "/z.bin", "-o", "z.bin"], in: sandbox.work)
            try await running.whileRunning {
                let connection = try await scripted.nextConnection()
                _ = await connection.readRequestHead()
                try await connection.write("HTTP/1.1 200 OK\r\nETag: \"z\"\r\nContent-Encoding: gzip\r\nContent-Length: \(gzipped.count)\r\n\r\n")
                try await connection.write(ByteBuffer(bytes: gzipped.prefix(100)))
                try await Self.waitUntil(sandbox.work.appending(path: "z.bin"), holds: 1)
                try await connection.close()
            }
            let outcome = try await running.finish()
            #expect(outcome.status != 0 && !outcome.stderr.contains("--continue"), "\(outcome.stderr)")
        }
        #expect(try sandbox.workContents() == ["z.bin"])
        #expect(sandbox.unchangedOutsideWork())
    }

    static let gzippedWords =
        "H4sIAAAAAAACA+3FsQkAMAgAsFf6nENBxMX/fcMhWZLTv+KlJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmS"
        + "JEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmS"
        + "JEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmSJEmXWyfKNlXgIgIA"

    @Test func aWholeBodyForUncheckedBytesIsRefusedAsCurlDoes() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let file = sandbox.work.appending(path: "whole.bin")
        let whole = try await LupineCommandLineTests.lupine(["download", server.baseURL.absoluteString + "/bytes/\(Self.cut)", "-o", "whole.bin"], in: sandbox.work)
        #expect(whole.status == 0)
        let before = try Data(contentsOf: file)
        // No record: a 200 (here to a range past the end) of another length, then a cut, must not
        // replace the file.
        let url = server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(Self.cut - 1)&at=1000&etag=none"
        let refused = try await LupineCommandLineTests.lupine(["download", url, "-o", "whole.bin", "--continue"], in: sandbox.work)
        #expect(refused.status == 1 && refused.stderr.contains("not the rest from byte"), "\(refused.stderr)")
        #expect(try Data(contentsOf: file) == before)
        // A whole body as long as the file: it is already complete, as curl and wget say.
        let sameLength = server.faultsBaseURL.absoluteString + "/interrupt?bytes=\(Self.cut)&at=1000&etag=none"
        let complete = try await LupineCommandLineTests.lupine(["download", sameLength, "-o", "whole.bin", "--continue"], in: sandbox.work)
        let said = "\(file.path) already holds the \(Self.cut) bytes the server sends (it ignores Range, so only the length was compared)"
        #expect(complete.status == 0 && complete.stderr == said + ": nothing to download\n", "\(complete.stderr)")
        #expect(try Data(contentsOf: file) == before)
        #expect(try sandbox.workContents() == ["whole.bin"])
    }

    @Test func theResumeRecordHoldsNoCredentialsAndIsPrivate() async throws {
        let server = try await LupineTestServer.start()
        defer { Task { await server.stop() } }
        let sandbox = try Sandbox()
        let address = server.faultsBaseURL.absoluteString.replacingOccurrences(of: "http://", with: "http://alice:s3cret@")
        let url = address + "/interrupt?bytes=\(Self.length)&at=\(Self.cut)"
        let cut = try await LupineCommandLineTests.lupine(["download", url, "-o", "f.bin"], in: sandbox.work)
        #expect(cut.status == 1)
        #expect(!cut.stderr.contains("s3cret"))
        let record = sandbox.work.appending(path: "f.bin.lupine-resume")
        let text = String(decoding: try Data(contentsOf: record), as: UTF8.self)
        #expect(!text.contains("s3cret") && !text.contains("alice"), "\(text)")
        var info = stat()
        #expect(stat(record.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    /// SHA-256 of the whole body `/interrupt` serves.
    static let expectedDigest = sha256(ofDeterministicBytes: length)

    /// SHA-256 of the first `length` bytes of ``DeterministicBytes``, as the server's byte
    /// endpoints serve them.
    static func sha256(ofDeterministicBytes length: Int) -> String {
        var hash = SHA256()
        DeterministicBytes.forEachRun(in: 0..<length) { hash.update(data: $0) }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 of `file`, read in chunks.
    static func sha256(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hash = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hash.update(data: chunk)
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Waits (at most 30 s) until `file` holds `length` bytes: the condition the signal needs,
    /// checked every 10 ms.
    static func waitUntil(_ file: URL, holds length: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while FileDownloadProbe.size(of: file) < length {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(file.path) never reached \(length) bytes")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// File sizes, for tests.
enum FileDownloadProbe {
    static func size(of url: URL) -> Int {
        var info = stat()
        return stat(url.path, &info) == 0 ? Int(info.st_size) : -1
    }
}
