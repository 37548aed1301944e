import Foundation
import Lupine
import LupineTestServer
import LupineTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// Requests and responses over real loopback sockets to ``LupineTestServer``.
@Suite struct TransportRequestTests {
    @Test func getReturnsHttpbinShapeWithArgs() async throws {
        try await withServerAndTransport { server, transport in
            let (response, body) = try await transport.get(server.baseURL.appending("/get?a=1&b=two"))
            #expect(response.status == .ok)
            let json = try #require(body.jsonObject)
            let args = try #require(json["args"] as? [String: Any])
            #expect(args["a"] as? String == "1")
            #expect(args["b"] as? String == "two")
            #expect(json["url"] as? String != nil)
            #expect(response.headers.first(name: "X-Lupine-Connection-ID") != nil)
        }
    }

    @Test func postSendsBytesWithContentLength() async throws {
        try await withServerAndTransport { server, transport in
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            let request = TransportRequest(
                method: .POST,
                url: server.baseURL.appending("/post"),
                headers: headers,
                body: .bytes(Array(#"{"name":"lupine"}"#.utf8)),
                cancellation: TransportCancellation()
            )
            let (response, body) = try await transport.fetch(request)
            #expect(response.status == .ok)
            let json = try #require(body.jsonObject)
            #expect((json["json"] as? [String: Any])?["name"] as? String == "lupine")
            let sentHeaders = try #require(json["headers"] as? [String: Any])
            #expect(sentHeaders["Content-Length"] as? String == "17")
            #expect(response.metrics.bodyBytesSent == 17)
        }
    }

    @Test func bodyProgressCountsWhatTheSocketTook() async throws {
        try await withServerAndTransport { server, transport in
            let totals = Recorder<Int>()
            let body = [UInt8](repeating: 0x62, count: 1024 * 1024)
            let request = TransportRequest(
                method: .POST,
                url: server.baseURL.appending("/post"),
                body: .bytes(body),
                bodyProgress: { totals.append($0) },
                cancellation: TransportCancellation()
            )
            _ = try await transport.fetch(request)
            #expect(totals.all.last == body.count)
            #expect(totals.all == totals.all.sorted())
        }
    }

    @Test func bodyProgressStopsWhereAServerStopsReading() async throws {
        try await withServerAndTransport { server, transport in
            let totals = Recorder<Int>()
            let size = 64 * 1024 * 1024
            let chunk = ByteBuffer(repeating: 0x63, count: 256 * 1024)
            let chunks = AsyncStream<ByteBuffer> { continuation in
                for _ in 0..<(size / chunk.readableBytes) {
                    continuation.yield(chunk)
                }
                continuation.finish()
            }
            let request = TransportRequest(
                method: .POST,
                url: server.faultsBaseURL.appending("/stop-reading"),
                body: .stream(chunks, length: size),
                // Long enough that a loaded machine sends the first bytes before it ends the request.
                timeout: .seconds(30),
                bodyProgress: { totals.append($0) },
                cancellation: TransportCancellation()
            )
            let upload = Task { try await transport.fetch(request) }
            try await waitUntil(timeout: .seconds(60), "the socket took the first bytes") { (totals.all.last ?? 0) > 0 }
            // The server never reads, so the request can only end by its timeout.
            await #expect(throws: TransportError.self) { _ = try await upload.value }
            // The kernel's buffers hold a few MiB; counting queued chunks would have reached 64 MiB.
            let sent = try #require(totals.all.last)
            #expect(sent < size / 2)
        }
    }

    @Test func streamedBodyWithoutLengthIsSentChunked() async throws {
        try await withServerAndTransport { server, transport in
            let chunks = AsyncStream<ByteBuffer> { continuation in
                for index in 0..<100 {
                    continuation.yield(ByteBuffer(string: String(repeating: "\(index % 10)", count: 1000)))
                }
                continuation.finish()
            }
            let request = TransportRequest(method: .PUT, url: server.baseURL.appending("/put"), body: .stream(chunks), cancellation: TransportCancellation())
            let (response, body) = try await transport.fetch(request)
            #expect(response.status == .ok)
            let json = try #require(body.jsonObject)
            let data = try #require(json["data"] as? String)
            #expect(data.utf8.count == 100_000)
            let sentHeaders = try #require(json["headers"] as? [String: Any])
            #expect(sentHeaders["Transfer-Encoding"] as? String == "chunked")
        }
    }

    @Test func fileBodyIsStreamedWithItsExactLength() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lupine-upload-\(UUID()).txt")
        let contents = String(repeating: "lupine file body\n", count: 20_000)
        try Data(contents.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withServerAndTransport { server, transport in
            let request = TransportRequest(
                method: .POST,
                url: server.baseURL.appending("/post"),
                body: .file(path: file.path, chunkSize: 4096),
                cancellation: TransportCancellation()
            )
            let (response, body) = try await transport.fetch(request)
            #expect(response.status == .ok)
            let json = try #require(body.jsonObject)
            #expect((json["data"] as? String)?.utf8.count == contents.utf8.count)
            #expect(response.metrics.bodyBytesSent == contents.utf8.count)
        }
    }

    @Test func missingFileFailsBeforeAnythingIsSent() async throws {
        try await withServerAndTransport { server, transport in
            let request = TransportRequest(
                method: .POST,
                url: server.baseURL.appending("/post"),
                body: .file(path: "/nonexistent/lupine/file"),
                cancellation: TransportCancellation()
            )
            await #expect {
                _ = try await transport.execute(request)
            } throws: { error in
                guard case TransportError.requestBodyFailed = error else { return false }
                return true
            }
            #expect(server.connections.accepted == 0)
        }
    }

    @Test func streamProducingMoreThanDeclaredLengthFails() async throws {
        try await withServerAndTransport { server, transport in
            let chunks = AsyncStream<ByteBuffer> { continuation in
                continuation.yield(ByteBuffer(string: String(repeating: "x", count: 200)))
                continuation.finish()
            }
            let request = TransportRequest(
                method: .POST,
                url: server.baseURL.appending("/post"),
                body: .stream(chunks, length: 100),
                cancellation: TransportCancellation()
            )
            await #expect {
                _ = try await transport.fetch(request)
            } throws: { error in
                guard case TransportError.requestBodyLengthMismatch(100, 200) = error else { return false }
                return true
            }
        }
    }

    @Test func responseBodyStreamsInPiecesAndMatchesByteForByte() async throws {
        try await withServerAndTransport { server, transport in
            let size = 3 * 1024 * 1024
            let (response, body) = try await transport.get(server.baseURL.appending("/stream-bytes/\(size)"))
            #expect(response.status == .ok)
            #expect(body.readableBytes == size)
            let (_, ranged) = try await transport.fetch(
                TransportRequest(
                    url: server.baseURL.appending("/bytes/\(size)"),
                    headers: ["Range": "bytes=1000-1999"],
                    cancellation: TransportCancellation()
                )
            )
            #expect(ranged.readableBytesView.elementsEqual(body.readableBytesView.dropFirst(1000).prefix(1000)))
        }
    }

    @Test func gzipAndDeflateBodiesAreInflated() async throws {
        try await withServerAndTransport { server, transport in
            let (gzipResponse, gzip) = try await transport.get(server.baseURL.appending("/gzip"))
            #expect(gzipResponse.headers.first(name: "Content-Encoding") == "gzip")
            #expect(gzip.jsonObject?["gzipped"] as? Bool == true)
            let (_, deflate) = try await transport.get(server.baseURL.appending("/deflate"))
            #expect(deflate.jsonObject?["deflated"] as? Bool == true)
        }
    }

    @Test func decompressionBombIsAnErrorNotACrash() async throws {
        try await withServerAndTransport { server, transport in
            await #expect {
                _ = try await transport.get(server.baseURL.appending("/gzip-bomb"))
            } throws: { error in
                guard case TransportError.decompressionLimitExceeded = error else { return false }
                return true
            }
        }
    }

    @Test func ipv6LoopbackWorks() async throws {
        try await withServerAndTransport(server: .init(host: "::1")) { server, transport in
            #expect(server.baseURL.absoluteString.contains("[::1]"))
            let (response, body) = try await transport.get(server.baseURL.appending("/get?v=6"))
            #expect(response.status == .ok)
            #expect((body.jsonObject?["args"] as? [String: Any])?["v"] as? String == "6")
            #expect(response.metrics.remoteAddress?.hasPrefix("::1") == true)
        }
    }

    @Test func hostNameIsResolvedAndTimed() async throws {
        try await withServerAndTransport { server, transport in
            let url = try #require(URL(string: "http://localhost:\(server.port)/get"))
            let (response, _) = try await transport.get(url)
            #expect(response.status == .ok)
            let metrics = response.metrics
            #expect(metrics.domainLookupDuration != nil)
            #expect(metrics.connectDuration != nil, "\(metrics)")
            #expect(metrics.timeToFirstByte != nil)
            #expect(metrics.totalDuration != nil)
            #expect(metrics.isReusedConnection == false)
            #expect(metrics.bytesReceived > metrics.bodyBytesReceived)
            let phases = [
                metrics.fetchStart, metrics.domainLookupStart, metrics.domainLookupEnd, metrics.connectStart,
                metrics.connectEnd, metrics.requestHeadSent, metrics.responseStart, metrics.responseEnd,
            ]
            .compactMap { $0 }
            #expect(phases.count == 8)
            #expect(phases == phases.sorted())
            let shown = Set(Mirror(reflecting: metrics).children.compactMap(\.label))
            #expect(shown.isSuperset(of: ["fetchStart", "domainLookupStart", "responseEnd", "bytesReceived"]))
        }
    }

    @Test func unsupportedSchemeIsAClearError() async throws {
        let transport = NIOTransport()
        defer { Task { await transport.shutdown() } }
        let url = try #require(URL(string: "ftp://127.0.0.1/file"))
        await #expect {
            _ = try await transport.execute(TransportRequest(url: url, cancellation: TransportCancellation()))
        } throws: { error in
            guard case TransportError.unsupportedScheme("ftp") = error else { return false }
            return true
        }
    }

    @Test func sharedTransportNeedsNoShutdown() async throws {
        let server = try await LupineTestServer.start()
        let (response, _) = try await NIOTransport.shared.get(server.baseURL.appending("/get"))
        #expect(response.status == .ok)
        await NIOTransport.shared.shutdown()
        let (again, _) = try await NIOTransport.shared.get(server.baseURL.appending("/get"))
        #expect(again.status == .ok)
        await server.stop()
    }

    @Test func requestsAfterShutdownFail() async throws {
        try await withServerAndTransport { server, transport in
            await transport.shutdown()
            await #expect {
                _ = try await transport.get(server.baseURL.appending("/get"))
            } throws: { error in
                guard case TransportError.shutdown = error else { return false }
                return true
            }
        }
    }
}
