import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

/// `lupine get` against the TLS test server (what `lupine serve --tls` runs) with the trust options.
@Suite struct LupineCommandLineTLSTests {
    /// Runs `body` with a TLS test server (speaking HTTP/2 beside HTTP/1.1 when asked) and a
    /// temporary folder for certificate files.
    static func withTLSServer(http2: Bool = false, _ body: (LupineTestServer, URL) async throws -> Void) async throws {
        let server = try await LupineTestServer.start(.init(tls: true, http2: http2))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lupine-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try await body(server, folder)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test func pinningTheServedLeafSucceeds() async throws {
        try await Self.withTLSServer { server, folder in
            let leaf = folder.appendingPathComponent("leaf.der")
            try Data(try #require(server.leafCertificateDER)).write(to: leaf)
            let url = server.baseURL.absoluteString + "/get"
            let outcome = try await LupineCommandLineTests.lupine(["get", url, "--pin-cert", leaf.path])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(LupineCommandLineTests.json(outcome.stdout)?["url"] != nil)
            let byKey = try await LupineCommandLineTests.lupine(["get", url, "--pin-key", leaf.path])
            #expect(byKey.status == 0, "\(byKey.stderr)")
        }
    }

    @Test func pinningAnotherCertificateFailsWithOneLine() async throws {
        try await Self.withTLSServer { server, folder in
            let other = folder.appendingPathComponent("other.pem")
            try Data(try TestCertificateAuthority(commonName: "Other Root").certificatePEM.utf8).write(to: other)
            let outcome = try await LupineCommandLineTests.lupine(["get", server.baseURL.absoluteString + "/get", "--pin-cert", other.path])
            #expect(outcome.status != 0)
            #expect(outcome.stdout.isEmpty)
            let lines = outcome.stderr.split(separator: "\n")
            #expect(lines.count == 1)
            #expect(outcome.stderr.hasPrefix("lupine: "))
            #expect(outcome.stderr.contains("127.0.0.1"))
            #expect(outcome.stderr.contains("pin mismatch"))
        }
    }

    @Test func insecureAndCACertSucceedWhereTheDefaultFails() async throws {
        try await Self.withTLSServer { server, folder in
            let url = server.baseURL.absoluteString + "/get"
            let refused = try await LupineCommandLineTests.lupine(["get", url])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("untrusted root"))

            let insecure = try await LupineCommandLineTests.lupine(["get", url, "--insecure"])
            #expect(insecure.status == 0, "\(insecure.stderr)")

            let root = folder.appendingPathComponent("ca.pem")
            try Data(try #require(server.certificateAuthorityPEM).utf8).write(to: root)
            let trusted = try await LupineCommandLineTests.lupine(["get", url, "--cacert", root.path])
            #expect(trusted.status == 0, "\(trusted.stderr)")

            let localhost = "https://localhost:\(server.port)/get"
            let named = try await LupineCommandLineTests.lupine(["get", localhost, "--cacert", root.path])
            #expect(named.status == 0, "\(named.stderr)")
        }
    }

    /// Over HTTP/2 (by ALPN, as `https` offers by default) the trust options hold as over HTTP/1.1;
    /// `-v` shows the protocol of the response, and the version flags choose it.
    @Test func theVersionFlagsChooseTheProtocolAndTrustHoldsOverHTTP2() async throws {
        try await Self.withTLSServer(http2: true) { server, folder in
            let url = server.baseURL.absoluteString + "/get"
            let refused = try await LupineCommandLineTests.lupine(["get", url])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("untrusted root"))
            let other = folder.appendingPathComponent("other.pem")
            try Data(try TestCertificateAuthority(commonName: "Other Root").certificatePEM.utf8).write(to: other)
            let mismatch = try await LupineCommandLineTests.lupine(["get", url, "--pin-cert", other.path])
            #expect(mismatch.stderr.contains("pin mismatch"))

            let root = folder.appendingPathComponent("ca.pem")
            try Data(try #require(server.certificateAuthorityPEM).utf8).write(to: root)
            let h2 = try await LupineCommandLineTests.lupine(["get", url, "--cacert", root.path, "-v"])
            #expect(h2.status == 0, "\(h2.stderr)")
            #expect(h2.stderr.contains("\nHTTP/2 200\n"))
            #expect(h2.stderr.lowercased().contains("x-lupine-protocol: h2"))
            #expect(LupineCommandLineTests.json(h2.stdout)?["url"] != nil)

            let h1 = try await LupineCommandLineTests.lupine(["get", url, "--cacert", root.path, "-v", "--http1.1"])
            #expect(h1.status == 0, "\(h1.stderr)")
            #expect(h1.stderr.contains("\nHTTP/1.1 200 OK\n"))

            let both = try await LupineCommandLineTests.lupine(["get", url, "--http1.1", "--http2"])
            #expect(both.status != 0)
            #expect(both.stderr.contains("exclude each other"))
        }
    }

    /// `--http2-prior-knowledge` speaks h2c to a cleartext HTTP/2 listener; without it, the
    /// request fails with a typed one-line error rather than hanging.
    @Test func priorKnowledgeReachesACleartextHTTP2Listener() async throws {
        let server = try await LupineTestServer.start(.init(http2: true))
        let outcome: (h2c: LupineCommandLineTests.Outcome, plain: LupineCommandLineTests.Outcome)
        do {
            let url = server.baseURL.absoluteString + "/get"
            outcome = (
                try await LupineCommandLineTests.lupine(["get", url, "-v", "--http2-prior-knowledge"]),
                try await LupineCommandLineTests.lupine(["get", url, "--timeout", "60"])
            )
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
        #expect(outcome.h2c.status == 0, "\(outcome.h2c.stderr)")
        #expect(outcome.h2c.stderr.contains("\nHTTP/2 200\n"))
        #expect(outcome.plain.status != 0)
        #expect(outcome.plain.stderr.hasPrefix("lupine: "))
    }

    @Test func domainValidationCanBeTurnedOff() async throws {
        let chains = try TrustFixtures.chains()
        let server = try await LupineTestServer.start(.init(certificateChain: chains.chain(.otherName)))
        let folder = FileManager.default.temporaryDirectory
        let root = folder.appendingPathComponent("lupine-root-\(UUID().uuidString).der")
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(chains.root.certificateDER).write(to: root)
        let url = "https://localhost:\(server.port)/get"
        let checked = try await LupineCommandLineTests.lupine(["get", url, "--cacert", root.path])
        let unchecked = try await LupineCommandLineTests.lupine(["get", url, "--cacert", root.path, "--no-domain-validation"])
        await server.stop()
        #expect(checked.status != 0)
        #expect(checked.stderr.contains("name mismatch"))
        #expect(unchecked.status == 0, "\(unchecked.stderr)")
    }

    @Test func serveWritesTheFilesThatGetTrusts() async throws {
        let folder = try temporaryFolder()
        let (ca, leaf) = (folder.appendingPathComponent("ca.pem"), folder.appendingPathComponent("leaf.der"))
        let printed = folder.appendingPathComponent("serve.out")
        let serve = try ChildProcess.start(
            LupineCommandLineTests.executable,
            ["serve", "--tls", "--port", "0", "--ca-out", ca.path, "--cert-out", leaf.path],
            in: folder,
            stdout: printed,
            stderr: folder.appendingPathComponent("serve.err")
        )
        do {
            try await Self.checkGetTrusts(printed: printed, ca: ca, leaf: leaf)
        } catch {
            serve.send(SIGKILL)
            _ = await serve.wait()
            throw error
        }
        serve.send(SIGTERM)
        _ = await serve.wait()
    }

    @Test(.enabled(if: Curl.isInstalled)) func serveSpeaksHTTP2ByALPNWhenAsked() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (ca, printed) = (folder.appendingPathComponent("ca.pem"), folder.appendingPathComponent("serve.out"))
        let serve = try ChildProcess.start(
            LupineCommandLineTests.executable,
            ["serve", "--tls", "--http2", "--port", "0", "--ca-out", ca.path],
            in: folder,
            stdout: printed,
            stderr: folder.appendingPathComponent("serve.err")
        )
        do {
            let base = try await Self.servedURL(printed: printed)
            for (flag, version) in [("--http2", "2"), ("--http1.1", "1.1")] {
                let curl = try await Curl.run(["-sS", flag, "--cacert", ca.path, "-o", "/dev/null", "-w", "%{http_version}", base + "/get"])
                #expect(curl.status == 0, "\(curl.stderr)")
                #expect(String(decoding: curl.stdout, as: UTF8.self) == version)
            }
        } catch {
            serve.send(SIGKILL)
            _ = await serve.wait()
            throw error
        }
        serve.send(SIGTERM)
        #expect(await serve.wait().status == 0)
    }

    /// The URL a `lupine serve` whose output is `printed` serves on: its first line names it.
    private static func servedURL(printed: URL) async throws -> String {
        var firstLine: String?
        try await waitUntil("lupine serve prints its URL") {
            let text = String(decoding: (try? Data(contentsOf: printed)) ?? Data(), as: UTF8.self)
            firstLine = text.firstIndex(of: "\n").map { String(text[..<$0]) }
            return firstLine != nil
        }
        return try #require(firstLine?.components(separatedBy: " ").last)
    }

    /// `lupine get` trusts the `lupine serve` whose output is `printed` through the files it wrote.
    private static func checkGetTrusts(printed: URL, ca: URL, leaf: URL) async throws {
        let base = try await Self.servedURL(printed: printed)
        #expect(base.hasPrefix("https://"))
        let pinned = try await LupineCommandLineTests.lupine(["get", base + "/get", "--pin-cert", leaf.path])
        #expect(pinned.status == 0, "\(pinned.stderr)")
        let rooted = try await LupineCommandLineTests.lupine(["get", base + "/get", "--cacert", ca.path])
        #expect(rooted.status == 0, "\(rooted.stderr)")
        let untrusted = try await LupineCommandLineTests.lupine(["get", base + "/get"])
        #expect(untrusted.status != 0)
    }
}
