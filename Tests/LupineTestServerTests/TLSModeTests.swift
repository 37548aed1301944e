import Foundation
import LupineTestServer
import LupineTestSupport
import Testing
import X509

@Suite("TLS mode")
struct TLSModeTests {
    @Test func servedLeafVerifiesAgainstTheExposedAuthority() async throws {
        try await withTestServer(.init(tls: true, requestHeadTimeout: .seconds(60))) { server in
            #expect(server.baseURL.absoluteString == "https://127.0.0.1:\(server.port)")
            let authorityDER = try #require(server.certificateAuthorityDER)
            let leafDER = try #require(server.leafCertificateDER)

            let served = try await TLSCertificateProbe.certificates(host: "127.0.0.1", port: server.port)
            #expect(served.first == leafDER)

            let authority = try Certificate(derEncoded: authorityDER)
            let leaf = try Certificate(derEncoded: leafDER)
            for (hostname, address) in [("localhost", nil), (nil, "127.0.0.1"), (nil, "::1")] as [(String?, String?)] {
                var verifier = Verifier(rootCertificates: CertificateStore([authority])) {
                    RFC5280Policy()
                    ServerIdentityPolicy(serverHostname: hostname, serverIP: address)
                }
                let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore())
                guard case .validCertificate = result else {
                    Issue.record("leaf did not verify for \(hostname ?? address ?? ""): \(result)")
                    continue
                }
            }

            let names = try #require(try leaf.extensions.subjectAlternativeNames)
            #expect(names.contains(.dnsName("localhost")))
            let addresses = names.compactMap { name -> [UInt8]? in
                guard case .ipAddress(let octets) = name else { return nil }
                return Array(octets.bytes)
            }
            #expect(addresses == [[127, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]])
            #expect(try leaf.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        }
    }

    @Test func leafFromAnotherAuthorityDoesNotVerify() async throws {
        let authority = try TestCertificateAuthority()
        let stranger = try TestCertificateAuthority(commonName: "Stranger CA")
        let leaf = try stranger.issueLeaf(dnsNames: ["localhost"])
        var verifier = Verifier(rootCertificates: CertificateStore([authority.certificate])) {
            RFC5280Policy()
        }
        let result = await verifier.validate(leaf: leaf.certificate, intermediates: CertificateStore())
        guard case .couldNotValidate = result else {
            Issue.record("a leaf from another authority verified")
            return
        }
    }

    @Test func expiredLeafFailsValidation() async throws {
        let authority = try TestCertificateAuthority()
        let leaf = try authority.issueLeaf(
            dnsNames: ["localhost"],
            notValidBefore: Date().addingTimeInterval(-7200),
            notValidAfter: Date().addingTimeInterval(-3600)
        )
        var verifier = Verifier(rootCertificates: CertificateStore([authority.certificate])) {
            RFC5280Policy()
        }
        let result = await verifier.validate(leaf: leaf.certificate, intermediates: CertificateStore())
        guard case .couldNotValidate = result else {
            Issue.record("an expired leaf verified")
            return
        }
        #expect(throws: TestCertificateAuthority.Error.invalidIPAddress("not-an-ip")) {
            try authority.issueLeaf(dnsNames: [], ipAddresses: ["not-an-ip"])
        }
    }
}
