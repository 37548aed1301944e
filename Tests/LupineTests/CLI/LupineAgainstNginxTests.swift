import Foundation
import LupineTestServer
import LupineTestSupport
import Testing

/// `lupine get` against nginx as users run it, on a loopback port, beside curl on the same server:
/// which protocol nginx logs, and what a client certificate opens.
@Suite(.enabled(if: Nginx.isInstalled && Curl.isInstalled))
struct LupineAgainstNginxTests {
    /// A folder with a certificate authority's root, a server leaf for 127.0.0.1 and a client
    /// leaf, each as PEM files nginx, curl and lupine read.
    struct Certificates {
        let folder: URL
        var root: String { self.folder.appending(path: "ca.pem").path }
        var serverCertificate: String { self.folder.appending(path: "server.pem").path }
        var serverKey: String { self.folder.appending(path: "server.key").path }
        var clientCertificate: String { self.folder.appending(path: "client.pem").path }
        var clientKey: String { self.folder.appending(path: "client.key").path }

        init(in folder: URL) throws {
            self.folder = folder
            let authority = try TestCertificateAuthority(commonName: "Lupine nginx Root")
            let server = try authority.issueLeaf(commonName: "127.0.0.1", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
            let client = try authority.issueLeaf(commonName: "lupine client", dnsNames: [], forClients: true)
            try Data(authority.certificatePEM.utf8).write(to: URL(fileURLWithPath: self.root))
            try Data(server.certificatePEM.utf8).write(to: URL(fileURLWithPath: self.serverCertificate))
            try Data(try server.privateKeyPEM().utf8).write(to: URL(fileURLWithPath: self.serverKey))
            try Data(client.certificatePEM.utf8).write(to: URL(fileURLWithPath: self.clientCertificate))
            try Data(try client.privateKeyPEM().utf8).write(to: URL(fileURLWithPath: self.clientKey))
        }
    }

    /// A location that answers with what nginx saw, so the body shows the protocol too.
    static let location = #"location / { return 200 "$server_protocol $request_uri ${ssl_client_s_dn}\n"; }"#

    /// Over TLS nginx logs `HTTP/2.0` for a default `lupine get` (h2 by ALPN) and `HTTP/1.1` for
    /// `--http1.1`, as for curl's `--http2` and `--http1.1`; the bodies match curl's byte for byte.
    @Test func httpsIsLoggedAsHTTP2AndHTTP11AsChosen() async throws {
        let folder = try temporaryFolder()
        let files = try Certificates(in: folder)
        let nginx = try await Nginx.start(in: folder, servers: Self.tlsServer(files))
        try await running {
            let url = "https://127.0.0.1:\(try #require(nginx.port))/alpn"
            let h2 = try await LupineCommandLineTests.lupine(["get", url, "--cacert", files.root, "--print", "b"])
            let h1 = try await LupineCommandLineTests.lupine(["get", url, "--cacert", files.root, "--print", "b", "--http1.1"])
            let curlH2 = try await Curl.run(["-s", "--http2", "--cacert", files.root, url])
            let curlH1 = try await Curl.run(["-s", "--http1.1", "--cacert", files.root, url])
            #expect(h2.status == 0, "\(h2.stderr)")
            #expect(h1.status == 0, "\(h1.stderr)")
            #expect(Data(h2.output) == curlH2.stdout)
            #expect(Data(h1.output) == curlH1.stdout)
            #expect(h2.stdout.hasPrefix("HTTP/2.0 /alpn"))
            let protocols = nginx.accessLog.compactMap(Self.loggedProtocol)
            #expect(protocols == ["HTTP/2.0", "HTTP/1.1", "HTTP/2.0", "HTTP/1.1"], "\(nginx.accessLog)")
        } thenAlways: {
            await nginx.stop()
        }
    }

    /// `--http2-prior-knowledge` to nginx's cleartext `http2` listener is logged as `HTTP/2.0`,
    /// as curl's is.
    @Test func priorKnowledgeIsLoggedAsHTTP2() async throws {
        let folder = try temporaryFolder()
        let nginx = try await Nginx.start(in: folder, servers: "server { listen 127.0.0.1:{port} http2; \(Self.location) }")
        try await running {
            let url = "http://127.0.0.1:\(try #require(nginx.port))/h2c"
            let lupine = try await LupineCommandLineTests.lupine(["get", url, "--http2-prior-knowledge", "--print", "b"])
            let curl = try await Curl.run(["-s", "--http2-prior-knowledge", url])
            #expect(lupine.status == 0, "\(lupine.stderr)")
            #expect(Data(lupine.output) == curl.stdout)
            #expect(nginx.accessLog.compactMap(Self.loggedProtocol) == ["HTTP/2.0", "HTTP/2.0"], "\(nginx.accessLog)")
        } thenAlways: {
            await nginx.stop()
        }
    }

    /// An nginx with `ssl_verify_client on` answers 400 to a client without a certificate, and
    /// serves `--cert/--key` as it serves curl's, over HTTP/2 and HTTP/1.1, and a PKCS#12 bundle too.
    @Test func aClientCertificateOpensAnNginxThatRequiresOne() async throws {
        let folder = try temporaryFolder()
        let files = try Certificates(in: folder)
        let nginx = try await Nginx.start(in: folder, servers: Self.tlsServer(files, "ssl_client_certificate \(files.root); ssl_verify_client on;"))
        try await running {
            let url = "https://127.0.0.1:\(try #require(nginx.port))/mtls"
            let identity = ["--cert", files.clientCertificate, "--key", files.clientKey]
            for version in [[], ["--http1.1"]] {
                let curl = try await Curl.run(["-s", "--cacert", files.root] + identity + version + [url])
                let lupine = try await LupineCommandLineTests.lupine(["get", url, "--cacert", files.root, "--print", "b"] + identity + version)
                #expect(lupine.status == 0, "\(lupine.stderr)")
                #expect(Data(lupine.output) == curl.stdout)
                #expect(lupine.stdout.contains("CN=lupine client"), "\(lupine.stdout)")
            }
            // The same identity in a PKCS#12 bundle: curl's --cert-type P12 and file:passphrase.
            if ClientIdentityTests.hasOpenSSL {
                let bundle = folder.appending(path: "client.p12").path
                try await ClientIdentityTests.openssl(
                    ["pkcs12", "-export", "-in", files.clientCertificate, "-inkey", files.clientKey, "-passout", "pass:secret", "-out", bundle],
                    in: folder
                )
                let curl = try await Curl.run(["-s", "--cacert", files.root, "--cert-type", "P12", "--cert", bundle + ":secret", url])
                let lupine = try await LupineCommandLineTests.lupine(["get", url, "--cacert", files.root, "--print", "b", "--cert", bundle, "--pass", "secret"])
                #expect(lupine.status == 0 && Data(lupine.output) == curl.stdout, "\(lupine.stderr)")
                #expect(lupine.stdout.contains("CN=lupine client"), "\(lupine.stdout)")
            }
            let without = try await LupineCommandLineTests.lupine(["get", url, "--cacert", files.root, "--print", "b"])
            #expect(without.stdout.contains("No required SSL certificate was sent"), "\(without.stdout) \(without.stderr)")
        } thenAlways: {
            await nginx.stop()
        }
    }

    /// A server block for TLS and HTTP/2 on `{port}` with `files`' server certificate, plus `extra`.
    static func tlsServer(_ files: Certificates, _ extra: String = "") -> String {
        """
        server {
            listen 127.0.0.1:{port} ssl http2;
            ssl_certificate \(files.serverCertificate);
            ssl_certificate_key \(files.serverKey);
            \(extra)
            \(Self.location)
        }
        """
    }

    /// The protocol of a line in nginx's default (`combined`) access log: the request line's last word.
    static func loggedProtocol(_ line: String) -> String? {
        let parts = line.split(separator: "\"")
        guard parts.count > 1, let last = parts[1].split(separator: " ").last else { return nil }
        return String(last)
    }
}
