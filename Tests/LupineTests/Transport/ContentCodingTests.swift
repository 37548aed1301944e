import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import Testing

/// Bodies in gzip, deflate, br and zstd, alone and in chains, decode to the bytes the server
/// encoded, over HTTP/1.1 and HTTP/2; the decompression limit holds for every coding; and a
/// stream that is corrupt, cut short, followed by stray bytes, or asks for a huge window fails
/// with a typed error.
@Suite(.timeLimit(.minutes(5))) struct ContentCodingTests {
    /// 300 KB that do not compress much (base64 of pseudo-random bytes), so several socket reads
    /// and several decoded chunks are crossed.
    static let body: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<225_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Array(Data(bytes).base64EncodedData())
    }()

    @Test func thisMachineDecodesAndAsksForAllFourCodings() {
        #expect(ContentCoding.available == [.gzip, .deflate, .brotli, .zstd])
        #expect(ContentCoding.acceptEncoding == "gzip, deflate, br, zstd")
    }

    @Test(arguments: WireProtocol.allCases, ["gzip", "deflate", "brotli", "zstd"])
    func httpbinsEncodedEchoDecodes(over wire: WireProtocol, path: String) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let (response, body) = try await transport.get(server.baseURL.appending("/\(path)"))
            #expect(response.status == .ok)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
            let flags = ["gzip": "gzipped", "deflate": "deflated", "brotli": "brotli", "zstd": "zstd"]
            #expect(object[flags[path] ?? ""] as? Bool == true)
            let headers = try #require(object["headers"] as? [String: Any])
            #expect(headers["Accept-Encoding"] as? String == "gzip, deflate, br, zstd")
        }
    }

    @Test(arguments: WireProtocol.allCases, ["gzip", "br", "zstd", "deflate", "gzip,br", "br,zstd", "zstd,gzip,deflate"])
    func aBodyInCodingsInTurnDecodesToTheSameBytes(over wire: WireProtocol, codings: String) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let request = TransportRequest(
                method: .POST,
                url: server.baseURL.appending("/encoded/\(codings)"),
                body: .bytes(Self.body),
                cancellation: TransportCancellation()
            )
            let (response, body) = try await transport.fetch(request)
            #expect(response.headers.first(name: "Content-Encoding") == codings.replacingOccurrences(of: ",", with: ", "))
            #expect(Array(body.readableBytesView) == Self.body)
        }
    }

    /// `lupine post` of a body the server sends back in br, zstd or a chain prints the decoded
    /// bytes, and curl (`--compressed`) posting those bytes to the same server prints the same.
    @Test(.enabled(if: Curl.isInstalled), arguments: ["br", "zstd", "gzip,br", "zstd,deflate"])
    func theCommandLineDecodesAsCurlDoes(codings: String) async throws {
        let server = try await LupineTestServer.start()
        try await running {
            let text = String(decoding: Self.body.prefix(60_000), as: UTF8.self)
            let url = server.baseURL.appending("/encoded/\(codings)").absoluteString
            let lupine = try await LupineCommandLineTests.lupine(["post", url, "text=\(text)", "--print", "b"])
            #expect(lupine.status == 0, "\(lupine.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(lupine.output)) as? [String: String]
            #expect(object == ["text": text])
            let sent = try temporaryFolder().appending(path: "sent.json")
            try Data(lupine.output).write(to: sent)
            let curl = try await Curl.run(["-s", "--compressed", "--data-binary", "@\(sent.path)", url])
            #expect(curl.stdout == Data(lupine.output))
        } thenAlways: {
            await server.stop()
        }
    }

    @Test(arguments: WireProtocol.allCases, ["gzip", "br", "zstd"])
    func aBombInAnyCodingStopsAtTheLimit(over wire: WireProtocol, coding: String) async throws {
        try await withServerAndTransport(over: wire) { server, transport in
            let response = try await transport.execute(TransportRequest(url: server.baseURL.appending("/bomb/\(coding)"), cancellation: TransportCancellation()))
            var delivered = 0
            let error = await #expect(throws: TransportError.self) {
                for try await chunk in response.body { delivered += chunk.readableBytes }
            }
            guard case .decompressionLimitExceeded(let inflated, _, _) = error else {
                Issue.record("expected decompressionLimitExceeded, got \(String(describing: error))")
                return
            }
            // The default limit: ratio 500 past 8 MiB; stopped within one 64 KiB chunk of it.
            #expect(inflated <= DecompressionLimit.default.ratioGrace + 64 * 1024)
            #expect(delivered < inflated)
        }
    }

    @Test func aRequestThatNamesItsOwnAcceptEncodingKeepsIt() async throws {
        try await withServerAndTransport { server, transport in
            let request = TransportRequest(url: server.baseURL.appending("/get"), headers: ["Accept-Encoding": "identity"], cancellation: TransportCancellation())
            let (_, body) = try await transport.fetch(request)
            #expect(String(buffer: body).contains(#""Accept-Encoding" : "identity""#))
        }
    }

    // MARK: Hostile streams

    /// The body of `/encoded/<coding>` for `plain`, as it came on the wire.
    static func encoded(_ plain: [UInt8], in coding: String) async throws -> [UInt8] {
        try await withServerAndTransport(transport: TransportConfiguration(decompressesResponses: false)) { server, transport in
            let request = TransportRequest(method: .POST, url: server.baseURL.appending("/encoded/\(coding)"), body: .bytes(plain), cancellation: TransportCancellation())
            return Array(try await transport.fetch(request).1.readableBytesView)
        }
    }

    /// What a transport makes of a response with `Content-Encoding: <coding>` and `body`.
    static func outcome(coding: String, body: [UInt8]) async throws -> Result<[UInt8], TransportError> {
        try await withScriptedServerAndTransport { server, transport in
            async let result: Result<[UInt8], TransportError> = {
                do {
                    let (_, received) = try await transport.fetch(TransportRequest(url: server.url.appending("/x"), cancellation: TransportCancellation()))
                    return .success(Array(received.readableBytesView))
                } catch let error as TransportError {
                    return .failure(error)
                }
            }()
            let connection = try await server.nextConnection()
            _ = await connection.readRequestHead()
            var answer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Encoding: \(coding)\r\nContent-Length: \(body.count)\r\n\r\n")
            answer.writeBytes(body)
            try await connection.write(answer)
            return try await result
        }
    }

    static func expectDecodingFailure(_ outcome: Result<[UInt8], TransportError>, saying words: String) {
        guard case .failure(.decompressionFailed(let reason)) = outcome else {
            Issue.record("expected decompressionFailed, got \(outcome)")
            return
        }
        #expect(reason.contains(words), "\(reason)")
    }

    @Test(arguments: ["gzip", "br", "zstd", "deflate"])
    func aStreamCutShortFails(coding: String) async throws {
        let whole = try await Self.encoded(Array("hello, cut short".utf8), in: coding)
        Self.expectDecodingFailure(try await Self.outcome(coding: coding, body: Array(whole.dropLast(3))), saying: "ends too early")
    }

    @Test(arguments: ["gzip", "br"])
    func bytesAfterTheStreamsEndFail(coding: String) async throws {
        let whole = try await Self.encoded(Array("hello".utf8), in: coding)
        Self.expectDecodingFailure(try await Self.outcome(coding: coding, body: whole + Array("junk".utf8)), saying: "after its end")
    }

    @Test(arguments: ["gzip", "br", "zstd", "deflate"])
    func garbageFails(coding: String) async throws {
        let garbage = Array("this is not compressed at all, not in any coding whatever".utf8)
        Self.expectDecodingFailure(try await Self.outcome(coding: coding, body: garbage), saying: "not valid")
    }

    /// A zstd frame header asking for a 128 MiB window (RFC 9659 lets a decoder refuse more than 8).
    @Test func aZstdWindowOver8MiBIsRefused() async throws {
        let frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 17 << 3, 0x01, 0x00, 0x00]
        Self.expectDecodingFailure(try await Self.outcome(coding: "zstd", body: frame), saying: "window larger than 8 MiB")
    }

    @Test func sixCodingsAreRefused() async throws {
        let outcome = try await Self.outcome(coding: "gzip, gzip, gzip, gzip, gzip, gzip", body: [0x1f, 0x8b])
        Self.expectDecodingFailure(outcome, saying: "more than 5 content codings")
    }

    @Test func twoGzipMembersDecodeToBoth() async throws {
        let first = try await Self.encoded(Array("one ".utf8), in: "gzip")
        let second = try await Self.encoded(Array("two".utf8), in: "gzip")
        #expect(try await Self.outcome(coding: "gzip", body: first + second).get() == Array("one two".utf8))
    }

    /// Each member in a chunk of its own, so that a member ends exactly where a body part does
    /// (the hostile pass found the second one then refused as bytes after the end).
    @Test func gzipMembersInChunksOfTheirOwnDecodeToAll() async throws {
        let members = [
            try await Self.encoded(Array("one ".utf8), in: "gzip"),
            try await Self.encoded(Array("two ".utf8), in: "gzip"),
            [0x1f],
        ]
        let whole = members[0] + members[1]
        for chunks in [[members[0], members[1]], [whole.dropLast(1).map { $0 }, [whole.last ?? 0]], [members[0], members[1], members[2]]] {
            let received = try await withScriptedServerAndTransport { server, transport in
                async let result: Result<[UInt8], any Error> = {
                    do {
                        return .success(Array(try await transport.fetch(TransportRequest(url: server.url.appending("/x"), cancellation: TransportCancellation())).1.readableBytesView))
                    } catch {
                        return .failure(error)
                    }
                }()
                let connection = try await server.nextConnection()
                _ = await connection.readRequestHead()
                try await connection.write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n")
                for chunk in chunks {
                    var buffer = ByteBuffer(string: String(chunk.count, radix: 16) + "\r\n")
                    buffer.writeBytes(chunk)
                    buffer.writeString("\r\n")
                    try await connection.write(buffer)
                }
                try await connection.write("0\r\n\r\n")
                return await result
            }
            if chunks.count == 3 {
                // A member cut after its first byte: the body ends too early.
                guard case .failure(TransportError.decompressionFailed(let reason)) = received else {
                    Issue.record("expected decompressionFailed, got \(received)")
                    continue
                }
                #expect(reason.contains("ends too early"))
            } else {
                #expect(try received.get() == Array("one two ".utf8))
            }
        }
    }

    @Test func rawDeflateWithoutItsZlibWrapperDecodes() async throws {
        let wrapped = try await Self.encoded(Array("raw deflate, as some servers send it".utf8), in: "deflate")
        // The zlib wrapper is a 2-byte header and a 4-byte checksum around the raw stream.
        let raw = Array(wrapped.dropFirst(2).dropLast(4))
        #expect(try await Self.outcome(coding: "deflate", body: raw).get() == Array("raw deflate, as some servers send it".utf8))
    }

    @Test(arguments: ["gzip, compress", "x-unknown", "br, sdch"])
    func aCodingNotDecodedHereLeavesTheBodyAsItCame(coding: String) async throws {
        let bytes = Array("left alone".utf8)
        #expect(try await Self.outcome(coding: coding, body: bytes).get() == bytes)
    }

    @Test(arguments: ["gzip", "br", "zstd", "x-gzip, identity"])
    func anEmptyBodyNamingACodingIsEmpty(coding: String) async throws {
        #expect(try await Self.outcome(coding: coding, body: []).get() == [])
    }
}
