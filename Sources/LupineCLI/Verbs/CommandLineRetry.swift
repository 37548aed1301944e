import Foundation
import Lupine

/// curl's retry rule for `lupine --retry`: the session's ``RetryPolicy``, except that a server's
/// `Retry-After` is waited out whole or not at all. The policy cuts a wait to its `maximumDelay`
/// (the budget, and never more than the hour a session waits); the command line ends the retries
/// instead of retrying early.
struct CommandLineRetry: RequestInterceptor {
    let policy: RetryPolicy

    /// How far a server's wait is measured: beyond any budget `--retry-max-time` takes, so a
    /// longer one is only "longer than that".
    static let longestMeasured = Duration.seconds(366 * 86_400)

    func retry(_ context: RetryContext) async throws -> RetryDecision {
        let decision = self.policy.decision(for: context)
        if case .retryAfter(let wait) = decision, let asked = self.serverWait(in: context), asked > wait {
            return .doNotRetry
        }
        return decision
    }

    /// The wait `context`'s answer asks for by `Retry-After`, when the policy honours its
    /// status's `Retry-After`; measured up to ``longestMeasured``.
    func serverWait(in context: RetryContext) -> Duration? {
        guard let head = context.response, self.policy.retryAfterStatusCodes.contains(head.statusCode) else { return nil }
        return RetryAfter.delay(in: head.headers, now: Date(), maximum: Self.longestMeasured)
    }
}
