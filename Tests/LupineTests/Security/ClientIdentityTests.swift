import Foundation
import Lupine
import LupineTestServer
import NIOConcurrencyHelpers
import LupineTestSupport
import NIOCore
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Mutual TLS: a client identity made from PEM or DER is presented to the test server's
/// TLS listener that requires a certificate its root signed, over HTTP/1.1 and HTTP/2; a client
/// without one, or with one from another root, is refused; and every identity that cannot be used
/// is a ``ClientIdentityError`` saying why, before any connection.
@Suite(.timeLimit(.minutes(5))) struct ClientIdentityTests {
    static let trusting = ServerTrustEvaluator { _ in .trusted }
    static var hasOpenSSL: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") }

    static func withServer<Result>(http2: Bool = false, _ body: (LupineTestServer) async throws -> Result) async throws -> Result {
        try await withTestServer(.init(tls: true, http2: http2, requiresClientCertificates: true).lenient, body)
    }

    static func get(_ url: URL, presenting identity: ClientIdentity?) async throws -> TransportResponse {
        let transport = NIOTransport(configuration: TransportConfiguration(serverTrustEvaluator: Self.trusting, clientIdentity: identity))
        return try await running {
            let (response, _) = try await transport.get(url)
            return response
        } thenAlways: {
            await transport.shutdown()
        }
    }

    @Test(arguments: [false, true]) func anIdentityThatTheServersRootSignedIsTakenOverBothVersions(http2: Bool) async throws {
        try await Self.withServer(http2: http2) { server in
            let issued = try server.issueClientCertificate()
            let identity = try ClientIdentity(certificateChain: Array(issued.certificatePEM.utf8), privateKey: Array(try issued.privateKeyPEM().utf8))
            let response = try await Self.get(server.baseURL.appending("/get"), presenting: identity)
            #expect(response.status == .ok)
            #expect(response.version == (http2 ? HTTPVersion(major: 2, minor: 0) : .http1_1))
        }
    }

    @Test func derCertificateAndKeyFilesWork() async throws {
        try await Self.withServer { server in
            let issued = try server.issueClientCertificate()
            let folder = try temporaryFolder()
            let certificate = folder.appending(path: "client.der")
            try Data(issued.certificateDER).write(to: certificate)
            let key = folder.appending(path: "client.key.der")
            try Data(try issued.privateKey.serializeAsPEM().derBytes).write(to: key)
            let identity = try ClientIdentity(certificateFile: certificate, privateKeyFile: key)
            #expect(try await Self.get(server.baseURL.appending("/get"), presenting: identity).status == .ok)
        }
    }

    @Test func noIdentityOrOneFromAnotherRootIsRefused() async throws {
        try await Self.withServer { server in
            await #expect(throws: TransportError.self) {
                _ = try await Self.get(server.baseURL.appending("/get"), presenting: nil)
            }
            let stranger = try TestCertificateAuthority().issueLeaf(commonName: "stranger", dnsNames: [], forClients: true)
            let identity = try ClientIdentity(certificateChain: Array(stranger.certificatePEM.utf8), privateKey: Array(try stranger.privateKeyPEM().utf8))
            await #expect(throws: TransportError.self) {
                _ = try await Self.get(server.baseURL.appending("/get"), presenting: identity)
            }
        }
    }

    // MARK: Asked when the server asks

    /// A provider is asked only when a server requests a certificate, once per connection, with
    /// the host and port; its answer opens the server over both versions, and `nil` presents none.
    @Test(arguments: [false, true]) func aProviderIsAskedOnlyWhenTheServerAsks(http2: Bool) async throws {
        try await Self.withServer(http2: http2) { server in
            let issued = try server.issueClientCertificate()
            let identity = try ClientIdentity(certificateChain: Array(issued.certificatePEM.utf8), privateKey: Array(try issued.privateKeyPEM().utf8))
            let asked = NIOLockedValueBox<[ClientCertificateChallenge]>([])
            let provider = ClientIdentityProvider { challenge in
                asked.withLockedValue { $0.append(challenge) }
                return identity
            }
            let transport = NIOTransport(configuration: TransportConfiguration(serverTrustEvaluator: Self.trusting, clientIdentityProvider: provider))
            try await running {
                for _ in 0..<3 {
                    let (response, _) = try await transport.get(server.baseURL.appending("/get"))
                    #expect(response.version == (http2 ? HTTPVersion(major: 2, minor: 0) : .http1_1))
                }
                #expect(asked.withLockedValue { $0 } == [ClientCertificateChallenge(host: "127.0.0.1", port: server.port)])
                // A request's own provider that answers nil presents nothing, and is refused.
                var request = TransportRequest(url: server.baseURL.appending("/get"), cancellation: TransportCancellation())
                request.clientIdentityProvider = ClientIdentityProvider { _ in nil }
                await #expect(throws: TransportError.self) { _ = try await transport.fetch(request) }
            } thenAlways: {
                await transport.shutdown()
            }
            // A server that does not ask gets no question.
            let plain = try await LupineTestServer.start(.init(tls: true, http2: http2))
            let quiet = NIOTransport(configuration: TransportConfiguration(serverTrustEvaluator: Self.trusting, clientIdentityProvider: provider))
            try await running {
                let (response, _) = try await quiet.get(plain.baseURL.appending("/get"))
                #expect(response.status == .ok)
                #expect(asked.withLockedValue { $0.count } == 1)
            } thenAlways: {
                await quiet.shutdown()
                await plain.stop()
            }
        }
    }

    /// The session's client-certificate hook, set after the session was made (as AFNetworking's
    /// block), answers the server's request; without it the request fails.
    @Test func theSessionsHookAnswersAClientCertificateChallenge() async throws {
        try await Self.withServer { server in
            let issued = try server.issueClientCertificate()
            let identity = try ClientIdentity(certificateChain: Array(issued.certificatePEM.utf8), privateKey: Array(try issued.privateKeyPEM().utf8))
            let manager = HTTPSessionManager(baseURL: server.baseURL, configuration: TransportConfiguration(serverTrustEvaluator: Self.trusting))
            defer { manager.invalidateSession(cancelingTasks: true) }
            manager.responseSerializer = HTTPResponseSerializer()
            await #expect(throws: LupineError.self) { _ = try await manager.get("get?without=identity") }
            let asked = NIOLockedValueBox(0)
            manager.hooks.didReceiveClientCertificateChallenge = { challenge in
                asked.withLockedValue { $0 += 1 }
                return challenge.host == "127.0.0.1" ? identity : nil
            }
            for index in 0..<3 {
                let response = try await manager.get("get?index=\(index)")
                #expect(response.head?.statusCode == 200)
            }
            #expect(asked.withLockedValue { $0 } == 1)
        }
    }

    // MARK: Identities that cannot be used

    static func expectRefusal(saying words: String, _ make: () throws -> ClientIdentity) {
        #expect {
            _ = try make()
        } throws: { error in
            guard let error = error as? ClientIdentityError else { return false }
            return error.reason.contains(words)
        }
    }

    @Test func aKeyThatIsNotTheCertificatesIsRefused() throws {
        let authority = try TestCertificateAuthority()
        let one = try authority.issueLeaf(dnsNames: [], forClients: true)
        let other = try authority.issueLeaf(dnsNames: [], forClients: true)
        Self.expectRefusal(saying: "is not the certificate's") {
            try ClientIdentity(certificateChain: Array(one.certificatePEM.utf8), privateKey: Array(try other.privateKeyPEM().utf8))
        }
    }

    @Test func unusableFilesAreRefusedInWords() throws {
        let folder = try temporaryFolder()
        Self.expectRefusal(saying: "does not exist") { try ClientIdentity(certificateFile: folder.appending(path: "none.pem")) }
        Self.expectRefusal(saying: "is a directory") { try ClientIdentity(certificateFile: folder) }
        let fifo = folder.appending(path: "fifo.pem")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        Self.expectRefusal(saying: "not a regular file") { try ClientIdentity(certificateFile: fifo) }
        // A link is followed: to a file that is gone it is missing, as curl says, not "not regular".
        let dangling = folder.appending(path: "dangling.pem")
        #expect(symlink(folder.appending(path: "gone.pem").path, dangling.path) == 0)
        Self.expectRefusal(saying: "is a symbolic link to \(folder.appending(path: "gone.pem").path), which does not exist") {
            try ClientIdentity(certificateFile: dangling)
        }
        let linked = folder.appending(path: "linked.pem")
        #expect(symlink(folder.path, linked.path) == 0)
        Self.expectRefusal(saying: "is a directory") { try ClientIdentity(certificateFile: linked) }
        // Refused by its size before it is read: a 4 GiB sparse file is not read into memory.
        let sparse = folder.appending(path: "sparse.pem")
        #expect(FileManager.default.createFile(atPath: sparse.path, contents: nil))
        #expect(truncate(sparse.path, 4 << 30) == 0)
        Self.expectRefusal(saying: "is larger than 1 MiB") { try ClientIdentity(certificateFile: sparse) }
        let garbage = folder.appending(path: "garbage.pem")
        try Data([0x00, 0xFF, 0x10, 0x80]).write(to: garbage)
        Self.expectRefusal(saying: "neither PEM nor DER") { try ClientIdentity(certificateFile: garbage) }
        let certificateOnly = folder.appending(path: "only.pem")
        try Data(try TestCertificateAuthority().issueLeaf(dnsNames: [], forClients: true).certificatePEM.utf8).write(to: certificateOnly)
        Self.expectRefusal(saying: "holds no private key") { try ClientIdentity(certificateFile: certificateOnly) }
        let keyOnly = folder.appending(path: "key-only.pem")
        try Data(try TestCertificateAuthority().issueLeaf(dnsNames: [], forClients: true).privateKeyPEM().utf8).write(to: keyOnly)
        Self.expectRefusal(saying: "holds no certificate") { try ClientIdentity(certificateFile: keyOnly) }
    }

    /// openssl writes what users bring: an encrypted PEM key.
    @Test(.enabled(if: Self.hasOpenSSL)) func encryptedKeysNeedTheirPassphrase() async throws {
        try await Self.withServer { server in
            let issued = try server.issueClientCertificate()
            let folder = try temporaryFolder()
            let (certificate, key) = try Self.write(issued, in: folder)
            let encrypted = folder.appending(path: "encrypted.key")
            try await Self.openssl(["pkey", "-in", key.path, "-aes256", "-passout", "pass:secret", "-out", encrypted.path], in: folder)
            Self.expectRefusal(saying: "encrypted; give its passphrase") { try ClientIdentity(certificateFile: certificate, privateKeyFile: encrypted) }
            Self.expectRefusal(saying: "passphrase does not decrypt") {
                try ClientIdentity(certificateFile: certificate, privateKeyFile: encrypted, passphrase: "wrong")
            }
            let unlocked = try ClientIdentity(certificateFile: certificate, privateKeyFile: encrypted, passphrase: "secret")
            #expect(try await Self.get(server.baseURL.appending("/get"), presenting: unlocked).status == .ok)
            // The command line, with curl's names: --cert and --key (and --pass), or a bundle.
            let ca = folder.appending(path: "ca.pem")
            try Data(try #require(server.certificateAuthorityPEM).utf8).write(to: ca)
            let url = server.baseURL.appending("/get").absoluteString
            let presented = try await LupineCommandLineTests.lupine(["get", url, "--cacert", ca.path, "--cert", certificate.path, "--key", key.path, "--print", "h"])
            #expect(presented.status == 0 && presented.stdout.hasPrefix("HTTP/1.1 200"), "\(presented.stderr)")
            let without = try await LupineCommandLineTests.lupine(["get", url, "--cacert", ca.path])
            #expect(without.status != 0)
            let locked = try await LupineCommandLineTests.lupine(["get", url, "--cacert", ca.path, "--cert", certificate.path, "--key", encrypted.path])
            #expect(locked.status == 1 && locked.stderr.contains("encrypted; give its passphrase"), "\(locked.stderr)")
        }
    }

    /// `issued`'s certificate and key as PEM files in `folder`.
    static func write(_ issued: IssuedCertificate, in folder: URL) throws -> (certificate: URL, key: URL) {
        let certificate = folder.appending(path: "client.pem")
        let key = folder.appending(path: "client.key")
        try Data(issued.certificatePEM.utf8).write(to: certificate)
        try Data(try issued.privateKeyPEM().utf8).write(to: key)
        return (certificate, key)
    }

    static func openssl(_ arguments: [String], in folder: URL) async throws {
        let run = try await ChildProcess.start(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            arguments,
            in: folder,
            stdout: folder.appending(path: "openssl.out"),
            stderr: folder.appending(path: "openssl.err")
        ).wait()
        try #require(run.status == 0, "openssl \(arguments.joined(separator: " ")) failed")
    }

    // MARK: PKCS#12

    /// Bundles as openssl exports them open with their passphrase and are taken by the server: a
    /// modern one (AES, PBKDF2) with the CA's certificate in it, a legacy one (RC2 and 3DES, which
    /// BoringSSL lacks), one without a passphrase; the command line reads them with `--cert` and
    /// `--pass`, recognised by their bytes or named by `--cert-type P12`, as curl does.
    @Test(.enabled(if: Self.hasOpenSSL)) func pkcs12BundlesOpenWithTheirPassphrase() async throws {
        try await Self.withServer { server in
            let issued = try server.issueClientCertificate()
            let folder = try temporaryFolder()
            let (certificate, key) = try Self.write(issued, in: folder)
            let ca = folder.appending(path: "ca.pem")
            try Data(try #require(server.certificateAuthorityPEM).utf8).write(to: ca)
            let export = ["pkcs12", "-export", "-in", certificate.path, "-inkey", key.path]
            let modern = folder.appending(path: "modern.p12")
            let legacy = folder.appending(path: "legacy.pfx")
            let open = folder.appending(path: "open.p12")
            try await Self.openssl(export + ["-certfile", ca.path, "-passout", "pass:secret", "-out", modern.path], in: folder)
            try await Self.openssl(export + ["-legacy", "-passout", "pass:secret", "-out", legacy.path], in: folder)
            try await Self.openssl(export + ["-passout", "pass:", "-out", open.path], in: folder)
            let url = server.baseURL.appending("/get")
            for identity in [
                try ClientIdentity(pkcs12File: modern, passphrase: "secret"),
                try ClientIdentity(pkcs12: Array(try Data(contentsOf: legacy)), passphrase: "secret"),
                try ClientIdentity(certificateFile: open),
                try ClientIdentity(certificateFile: modern, passphrase: "secret"),
            ] {
                #expect(try await Self.get(url, presenting: identity).status == .ok)
            }
            for arguments in [["--cert", modern.path, "--pass", "secret"], ["--cert", legacy.path, "--cert-type", "p12", "--pass", "secret"]] {
                let run = try await LupineCommandLineTests.lupine(["get", url.absoluteString, "--cacert", ca.path, "--print", "h"] + arguments)
                #expect(run.status == 0 && run.stdout.hasPrefix("HTTP/1.1 200"), "\(run.stderr)")
            }
            let wrong = try await LupineCommandLineTests.lupine(["get", url.absoluteString, "--cacert", ca.path, "--cert", modern.path, "--pass", "nope"])
            #expect(wrong.status == 1 && wrong.stderr.contains("the passphrase does not open the bundle"), "\(wrong.stderr)")
            let withKey = try await LupineCommandLineTests.lupine(["get", url.absoluteString, "--cert", modern.path, "--cert-type", "P12", "--key", key.path])
            #expect(withKey.status == 64 && withKey.stderr.contains("the bundle holds the key"), "\(withKey.stderr)")
        }
    }

    /// NIOSSL's own reader traps on a bundle without a key or a certificate (the hostile pass):
    /// each is a refusal in words here, as are a wrong or missing passphrase, a bundle without an
    /// integrity check, a cut bundle and bytes that are none.
    @Test(.enabled(if: Self.hasOpenSSL)) func unusableBundlesAreRefusedInWords() async throws {
        let issued = try TestCertificateAuthority().issueLeaf(dnsNames: [], forClients: true)
        let folder = try temporaryFolder()
        let (certificate, key) = try Self.write(issued, in: folder)
        let bundle = folder.appending(path: "client.p12")
        let keyless = folder.appending(path: "keyless.p12")
        let certificateless = folder.appending(path: "certificateless.p12")
        let unchecked = folder.appending(path: "unchecked.p12")
        try await Self.openssl(["pkcs12", "-export", "-in", certificate.path, "-inkey", key.path, "-passout", "pass:secret", "-out", bundle.path], in: folder)
        try await Self.openssl(["pkcs12", "-export", "-nokeys", "-in", certificate.path, "-passout", "pass:secret", "-out", keyless.path], in: folder)
        try await Self.openssl(["pkcs12", "-export", "-nocerts", "-inkey", key.path, "-passout", "pass:secret", "-out", certificateless.path], in: folder)
        try await Self.openssl(
            ["pkcs12", "-export", "-nomac", "-in", certificate.path, "-inkey", key.path, "-passout", "pass:secret", "-out", unchecked.path],
            in: folder
        )
        let bytes = Array(try Data(contentsOf: bundle))
        Self.expectRefusal(saying: "the passphrase does not open the bundle") { try ClientIdentity(pkcs12: bytes, passphrase: "wrong") }
        Self.expectRefusal(saying: "protected by a passphrase; give it") { try ClientIdentity(pkcs12: bytes) }
        Self.expectRefusal(saying: "holds a NUL") { try ClientIdentity(pkcs12: bytes, passphrase: "sec\u{0}ret") }
        Self.expectRefusal(saying: "holds no private key") { try ClientIdentity(pkcs12File: keyless, passphrase: "secret") }
        Self.expectRefusal(saying: "holds no certificate") { try ClientIdentity(pkcs12File: certificateless, passphrase: "secret") }
        Self.expectRefusal(saying: "no integrity check") { try ClientIdentity(pkcs12File: unchecked, passphrase: "secret") }
        Self.expectRefusal(saying: "is not PKCS#12") { try ClientIdentity(pkcs12: Array(bytes.prefix(bytes.count / 2)), passphrase: "secret") }
        Self.expectRefusal(saying: "is not PKCS#12") { try ClientIdentity(pkcs12: Array(issued.certificatePEM.utf8)) }
        Self.expectRefusal(saying: "is not PKCS#12") { try ClientIdentity(pkcs12: []) }
        Self.expectRefusal(saying: "is a directory") { try ClientIdentity(pkcs12File: folder) }
    }
}
