import Foundation
import Lupine
import LupineTestServer
import Testing

/// Setting a policy on a manager, loading certificates and keys from files, and pooling per policy.
@Suite struct SecurityPolicyConfigurationTests {
    @Test func pinningNeedsAnHTTPSBaseURL() throws {
        let pinning = SecurityPolicy(pinningMode: .publicKey)
        for base in ["http://example.com/api", nil] as [String?] {
            let manager = HTTPSessionManager(baseURL: base.flatMap(URL.init(string:)))
            #expect {
                try manager.setSecurityPolicy(pinning)
            } throws: { error in
                guard case LupineError.pinningRequiresSecureBaseURL = error else { return false }
                return true
            }
            #expect(manager.securityPolicy == .default)
            try manager.setSecurityPolicy(SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false))
        }
        let secure = HTTPSessionManager(baseURL: URL(string: "https://example.com"))
        try secure.setSecurityPolicy(pinning)
        #expect(secure.securityPolicy == pinning)
    }

    @Test func certificatesAreReadFromDERAndPEMFilesInAFolder() throws {
        let chains = try TrustFixtures.chains()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lupine-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(chains.root.certificateDER).write(to: folder.appendingPathComponent("root.der"))
        try Data(chains.intermediate.certificateDER).write(to: folder.appendingPathComponent("intermediate.CER"))
        let pems = chains.unrelatedRoot.certificatePEM + "\n" + chains.root.certificatePEM
        try Data(pems.utf8).write(to: folder.appendingPathComponent("bundle.pem"))
        try Data("not a certificate".utf8).write(to: folder.appendingPathComponent("notes.txt"))

        let loaded = try SecurityPolicy.certificates(in: folder)
        #expect(loaded == [chains.root.certificateDER, chains.intermediate.certificateDER, chains.unrelatedRoot.certificateDER])

        try Data("junk".utf8).write(to: folder.appendingPathComponent("broken.crt"))
        #expect(throws: LupineError.self) { try SecurityPolicy.certificates(in: folder) }
    }

    @Test func aPEMPublicKeyPinsLikeTheCertificateCarryingIt() async throws {
        let chains = try TrustFixtures.chains()
        let leaf = chains.chain(.valid)
        let folder = FileManager.default.temporaryDirectory
        let certificateFile = folder.appendingPathComponent("lupine-leaf-\(UUID().uuidString).der")
        let keyFile = folder.appendingPathComponent("lupine-key-\(UUID().uuidString).pem")
        defer {
            try? FileManager.default.removeItem(at: certificateFile)
            try? FileManager.default.removeItem(at: keyFile)
        }
        try Data(leaf.leafDER).write(to: certificateFile)
        let fromCertificate = try SecurityPolicy.publicKeys(inFile: certificateFile)
        let keyPEM = try leaf.privateKey.publicKey.serializeAsPEM().pemString
        try Data(keyPEM.utf8).write(to: keyFile)
        let fromKey = try SecurityPolicy.publicKeys(inFile: keyFile)
        #expect(fromCertificate == fromKey)

        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedPublicKeys: Set(fromKey), additionalTrustRoots: [chains.root.certificateDER])
        #expect(await policy.evaluateServerTrust(chains.chain(.reissuedSameKey).certificatesDER, forDomain: "localhost"))
        #expect(await !policy.evaluateServerTrust(chains.chain(.differentKey).certificatesDER, forDomain: "localhost"))
    }

    @Test func connectionsArePooledPerPolicy() async throws {
        let chains = try TrustFixtures.chains()
        try await TrustFixtures.withServer(presenting: .valid) { server, transport in
            let manager = HTTPSessionManager(baseURL: URL(string: "https://localhost:\(server.port)/"), transport: transport)
            let policy = SecurityPolicy(additionalTrustRoots: [chains.root.certificateDER])
            try manager.setSecurityPolicy(policy)
            let first = try await Self.connectionID(manager)
            try manager.setSecurityPolicy(policy)
            #expect(try await Self.connectionID(manager) == first, "an equal policy keeps the pooled connection")
            var pinning = policy
            pinning.pinningMode = .certificate
            pinning.pinnedCertificates = [chains.root.certificateDER]
            try manager.setSecurityPolicy(pinning)
            #expect(try await Self.connectionID(manager) != first, "another policy never reuses it")
        }
    }

    static func connectionID(_ manager: HTTPSessionManager) async throws -> String? {
        try await manager.get("get").head?.headers.first(name: "X-Lupine-Connection-ID")
    }
}
