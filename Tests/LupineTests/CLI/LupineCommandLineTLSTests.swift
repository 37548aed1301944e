import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

/// `lupine get` against the TLS test server (what `lupine serve --tls` runs) with the trust options.
@Suite struct LupineCommandLineTLSTests {
    /// Runs `body` with a TLS test server and a temporary folder for certificate files.
    static func withTLSServer(_ body: (LupineTestServer, URL) async throws -> Void) async throws {
        let server = try await LupineTestServer.start(.init(tls: true))
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

    /// `lupine get` trusts the `lupine serve` whose output is `printed` through the files it wrote.
    private static func checkGetTrusts(printed: URL, ca: URL, leaf: URL) async throws {
        // The first line names the URL.
        var firstLine: String?
        try await waitUntil("lupine serve prints its URL") {
            let text = String(decoding: (try? Data(contentsOf: printed)) ?? Data(), as: UTF8.self)
            firstLine = text.firstIndex(of: "\n").map { String(text[..<$0]) }
            return firstLine != nil
        }
        let base = try #require(firstLine?.components(separatedBy: " ").last)
        #expect(base.hasPrefix("https://"))
        let pinned = try await LupineCommandLineTests.lupine(["get", base + "/get", "--pin-cert", leaf.path])
        #expect(pinned.status == 0, "\(pinned.stderr)")
        let rooted = try await LupineCommandLineTests.lupine(["get", base + "/get", "--cacert", ca.path])
        #expect(rooted.status == 0, "\(rooted.stderr)")
        let untrusted = try await LupineCommandLineTests.lupine(["get", base + "/get"])
        #expect(untrusted.status != 0)
    }
}
