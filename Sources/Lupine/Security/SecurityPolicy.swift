import Foundation

/// How a session decides whether to trust a server's certificate chain, as AFNetworking's
/// `AFSecurityPolicy`: full validation, optionally narrowed by pinning certificates or public keys.
///
/// ```swift
/// var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: try SecurityPolicy.certificates(in: folder))
/// try manager.setSecurityPolicy(policy)
/// ```
///
/// A policy is a plain value; ``evaluateServerTrust(_:forDomain:)`` applies it to a chain without
/// any socket, so every rule can be tested on its own.
public struct SecurityPolicy: Sendable, Hashable {
    /// What, beyond a valid chain, a server must present to be trusted.
    public enum PinningMode: Sendable, Hashable {
        /// Nothing is pinned: a chain valid against the trusted roots is enough.
        case none
        /// The chain must be valid with the pinned certificates as its only trust anchors
        /// (any of them — leaf, intermediate or root — can anchor it) and contain one of them.
        case certificate
        /// Some certificate in the chain must carry the public key of a pinned certificate
        /// (or one of ``SecurityPolicy/pinnedPublicKeys``); a renewed certificate with the same key still matches.
        case publicKey
    }

    /// What is pinned.
    public var pinningMode: PinningMode
    /// The pinned certificates, DER encoded. In ``PinningMode/publicKey`` mode their public keys are what counts.
    public var pinnedCertificates: Set<[UInt8]>
    /// Public keys pinned on their own, as DER `SubjectPublicKeyInfo`; used in ``PinningMode/publicKey`` mode only.
    public var pinnedPublicKeys: Set<[UInt8]>
    /// Whether a chain that is invalid (expired, untrusted root, wrong name) may still be accepted.
    /// With ``PinningMode/none`` this trusts any server; with pinning the pin still decides. Default `false`.
    public var allowInvalidCertificates: Bool
    /// Whether the certificate must be issued for the domain the connection was made to. Default `true`.
    public var validatesDomainName: Bool
    /// Root certificates (DER) trusted in addition to the system's trust store, as `curl --cacert`.
    public var additionalTrustRoots: Set<[UInt8]>

    /// Creates a policy. With no pinned certificates given, none are pinned (Lupine has no bundle
    /// to search, unlike AFNetworking); use ``certificates(in:)`` to load a folder of them.
    public init(
        pinningMode: PinningMode = .none,
        pinnedCertificates: Set<[UInt8]> = [],
        pinnedPublicKeys: Set<[UInt8]> = [],
        allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true,
        additionalTrustRoots: Set<[UInt8]> = []
    ) {
        self.pinningMode = pinningMode
        self.pinnedCertificates = pinnedCertificates
        self.pinnedPublicKeys = pinnedPublicKeys
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
        self.additionalTrustRoots = additionalTrustRoots
    }

    /// No pinning, no invalid certificates, domain names validated against the system's trust store.
    public static let `default` = SecurityPolicy()

    /// Whether anything is pinned: the mode is not ``PinningMode/none`` and a certificate or key is given.
    var pinsAnything: Bool {
        self.pinningMode != .none && !(self.pinnedCertificates.isEmpty && self.pinnedPublicKeys.isEmpty)
    }
}
