/// Why a ``SecurityPolicy`` refused a server's certificate chain; an `Error` so that validation steps can throw or return it.
public enum ServerTrustFailureReason: Error, Hashable, CustomStringConvertible {
    /// The server presented no certificate.
    case noCertificate
    /// A certificate of the chain is not valid DER.
    case unparsableCertificate
    /// A certificate of the chain is expired or not yet valid at the validation time.
    case expired
    /// The certificate is not issued for the domain the connection was made to.
    case nameMismatch(domain: String)
    /// The chain does not lead to a trusted root.
    case untrustedRoot
    /// No pinned certificate or public key matches the chain.
    case pinMismatch
    /// Invalid certificates are allowed and the domain is validated, but nothing is pinned: a
    /// self-signed certificate's name can only be trusted through pinning.
    case domainValidationRequiresPinning

    public var description: String {
        switch self {
        case .noCertificate:
            return "the server presented no certificate"
        case .unparsableCertificate:
            return "the server's certificate could not be parsed"
        case .expired:
            return "a certificate in the chain is expired or not yet valid"
        case .nameMismatch(let domain):
            return "the certificate's names do not include \(domain), a name mismatch"
        case .untrustedRoot:
            return "the chain leads to an untrusted root"
        case .pinMismatch:
            return "no pinned certificate or key matches the chain, a pin mismatch"
        case .domainValidationRequiresPinning:
            return "invalid certificates are allowed with domain validation but nothing is pinned"
        }
    }
}
