import Foundation
import Lupine

extension RequestOptions {
    /// The security policy `--pin-cert`, `--pin-key`, `--cacert`, `--insecure` and
    /// `--no-domain-validation` describe.
    ///
    /// A pin is the trust decision, so pinning allows certificates the system would not trust: with
    /// `--pin-cert` the chain must still be valid for the host with a pinned certificate as its
    /// anchor; with `--pin-key` a pinned key in the chain is enough (AFNetworking's public-key
    /// pinning with invalid certificates allowed). `--insecure` alone also stops the name check, as
    /// curl's does: AFNetworking's rules refuse to trust the name of an invalid certificate that is not pinned.
    ///
    /// - Throws: ``LupineError/certificateLoadingFailed(path:reason:)`` for a file with no certificate or key.
    func securityPolicy() throws -> SecurityPolicy {
        var policy = SecurityPolicy()
        if !self.pinnedCertificateFiles.isEmpty {
            policy.pinningMode = .certificate
            for path in self.pinnedCertificateFiles {
                policy.pinnedCertificates.formUnion(try SecurityPolicy.certificates(inFile: Self.fileURL(path)))
            }
        }
        if !self.pinnedKeyFiles.isEmpty {
            policy.pinningMode = .publicKey
            for path in self.pinnedKeyFiles {
                policy.pinnedPublicKeys.formUnion(try SecurityPolicy.publicKeys(inFile: Self.fileURL(path)))
            }
        }
        for path in self.trustedRootFiles {
            policy.additionalTrustRoots.formUnion(try SecurityPolicy.certificates(inFile: Self.fileURL(path)))
        }
        policy.allowInvalidCertificates = self.insecure || policy.pinningMode != .none
        policy.validatesDomainName = !self.noDomainValidation && !(self.insecure && policy.pinningMode == .none)
        return policy
    }

    /// How an HTTPS proxy's own certificate is judged: `--proxy-cacert` roots beside the
    /// system's, or not at all with `--proxy-insecure`.
    func proxyTrustEvaluator() throws -> ServerTrustEvaluator {
        var policy = SecurityPolicy()
        for path in self.proxyTrustedRootFiles {
            policy.additionalTrustRoots.formUnion(try SecurityPolicy.certificates(inFile: Self.fileURL(path)))
        }
        policy.allowInvalidCertificates = self.proxyInsecure
        policy.validatesDomainName = !self.proxyInsecure
        return policy.makeServerTrustEvaluator()
    }

    private static func fileURL(_ path: String) -> URL {
        LocalPath.url(path)
    }
}
