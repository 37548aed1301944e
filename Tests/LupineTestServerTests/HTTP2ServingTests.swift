import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

/// The main listener speaking HTTP/2, checked with curl: over TLS by ALPN beside HTTP/1.1, in
/// cleartext to clients with prior knowledge, many streams on one connection, and a connection
/// that opens no stream closed as a silent HTTP/1.1 one is.
@Suite("HTTP/2", .enabled(if: Curl.isInstalled), .timeLimit(.minutes(5)))
struct HTTP2ServingTests {
    /// A response as `curl -i -w '\n%{http_version}'` prints it: the status line, the header
    /// fields (names lowercased), the body, and the protocol curl used.
    struct Exchange {
        let statusLine: String
        let fields: [String: String]
        let body: String
        let version: String

        init(_ output: Data) throws {
            let text = String(decoding: output, as: UTF8.self)
            let head = try #require(text.range(of: "\r\n\r\n"))
            var lines = text[..<head.lowerBound].components(separatedBy: "\r\n")
            self.statusLine = lines.removeFirst()
            var fields: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            self.fields = fields
            let rest = text[head.upperBound...]
            let lastLine = try #require(rest.lastIndex(of: "\n"))
            self.body = String(rest[..<lastLine])
            self.version = String(rest[rest.index(after: lastLine)...])
        }
    }

    private static func exchange(_ arguments: [String]) async throws -> Exchange {
        let curl = try await Curl.run(["-sS", "-i", "-w", "\n%{http_version}"] + arguments)
        #expect(curl.status == 0, "\(curl.stderr)")
        return try Exchange(curl.stdout)
    }

    /// Runs `body` with an HTTP/2 server over TLS and its root CA in a PEM file, for `--cacert`.
    private static func withTLSServer(_ body: (LupineTestServer, URL) async throws -> Void) async throws {
        try await withTestServer(.init(tls: true, http2: true, requestHeadTimeout: .seconds(60))) { server in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lupine-h2-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let ca = folder.appendingPathComponent("ca.pem")
            try Data(try #require(server.certificateAuthorityPEM).utf8).write(to: ca)
            try await body(server, ca)
        }
    }

    @Test func tlsOffersH2AndHTTP11ByALPN() async throws {
        try await Self.withTLSServer { server, ca in
            let url = server.baseURL.appendingPathComponent("get").absoluteString + "?a=1"

            let h2 = try await Self.exchange(["--http2", "--cacert", ca.path, url])
            #expect(h2.statusLine.hasPrefix("HTTP/2 200"))
            #expect(h2.version == "2")
            #expect(h2.fields["x-lupine-protocol"] == "h2")
            #expect(h2.fields["x-lupine-connection-id"] != nil)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(h2.body.utf8)) as? [String: Any])
            #expect((json["args"] as? [String: Any])?["a"] as? String == "1")

            let h1 = try await Self.exchange(["--http1.1", "--cacert", ca.path, url])
            #expect(h1.statusLine.hasPrefix("HTTP/1.1 200"))
            #expect(h1.version == "1.1")
            #expect(h1.fields["x-lupine-protocol"] == "http/1.1")
        }
    }

    @Test func cleartextSpeaksH2ToClientsWithPriorKnowledge() async throws {
        try await withTestServer(.init(http2: true, requestHeadTimeout: .seconds(60))) { server in
            let body = String(repeating: "0123456789", count: 10_000)
            let posted = try await Self.exchange([
                "--http2-prior-knowledge", "--data-binary", body, "-H", "Content-Type: text/plain",
                server.baseURL.appendingPathComponent("post").absoluteString,
            ])
            #expect(posted.statusLine.hasPrefix("HTTP/2 200"))
            #expect(posted.fields["x-lupine-protocol"] == "h2")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(posted.body.utf8)) as? [String: Any])
            #expect(json["data"] as? String == body)
        }
    }

    /// Over TLS: curl 7.88 fails parallel transfers on an h2c connection (error 16) whatever the server.
    @Test func parallelRequestsAreStreamsOfOneConnection() async throws {
        try await Self.withTLSServer { server, ca in
            // Twenty requests that each take a second: as streams of one connection.
            let urls = (0..<20).flatMap { index in
                ["-o", "/dev/null", server.baseURL.appendingPathComponent("delay/1").absoluteString + "?i=\(index)"]
            }
            let curl = try await Curl.run(["-sS", "--http2", "--cacert", ca.path, "--parallel", "--parallel-max", "20", "-w", "%{http_version} "] + urls)
            #expect(curl.status == 0, "\(curl.stderr)")
            #expect(String(decoding: curl.stdout, as: UTF8.self) == String(repeating: "2 ", count: 20))
            #expect(server.connections.accepted == 1)
        }
    }
}
