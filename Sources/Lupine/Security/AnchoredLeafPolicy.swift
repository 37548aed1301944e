import Foundation
import SwiftASN1
import X509

/// The rule for a path of one certificate that is its own trust anchor: a pinned leaf, or a
/// self-signed server certificate pinned as itself.
///
/// swift-certificates' `RFC5280Policy` accepts an end-entity certificate as an anchor only when it
/// is marked as a CA; AFNetworking (through the Security framework) trusts a pinned anchor as it is.
/// This policy accepts such a path when the certificate is within its validity period, and no
/// longer path at all, so it never widens what a chain through a CA may do.
struct AnchoredLeafPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = RFC5280Policy().verifyingCriticalExtensions
    /// Whether the validity period is checked.
    let checksExpiry: Bool
    /// The time the certificate must be valid at; `nil` for the time of validation.
    let validationTime: Date?

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 1, let leaf = chain.first else {
            return .failsToMeetPolicy(reason: "AnchoredLeafPolicy: only a single anchored certificate is accepted")
        }
        guard self.checksExpiry else { return .meetsPolicy }
        let time = self.validationTime ?? Date()
        guard leaf.notValidBefore <= time, time <= leaf.notValidAfter else {
            return .failsToMeetPolicy(reason: "AnchoredLeafPolicy: the certificate is not valid at \(time)")
        }
        return .meetsPolicy
    }
}
