import Foundation
import Lupine

/// Says on standard error when a request is about to be sent again, as curl's "Will retry"
/// warning does: which failure, how long the wait, how many retries are left. Without it a
/// Retry-After wait looks like a hang. With `-v` the answer that is retried is shown first, as
/// `curl -v` shows every response; the final one is shown by the exchange. When retries are left
/// but the server's `Retry-After` asks for a wait that would go past `--retry-max-time`, or for
/// longer than a session waits, it says that no retry is made and why, as curl warns.
struct RetryNotice: EventMonitor {
    let retry: CommandLineRetry
    let showsHeads: Bool

    private var policy: RetryPolicy { self.retry.policy }

    func task(_ task: SessionTask, didDecide decision: RetryDecision, for context: RetryContext) {
        let wait: Duration
        switch decision {
        case .retry: wait = .zero
        case .retryAfter(let delay): wait = delay
        case .doNotRetry:
            self.explainAWaitTooLong(context)
            return
        case .doNotRetryWithError: return
        }
        if self.showsHeads, let head = context.response {
            StandardError.write(TerminalText.sanitized(ExchangeFormatter.responseHead(head)) + "\n")
        }
        let failure = context.response.map { "HTTP \($0.statusCode)" } ?? context.error.description
        let left = self.policy.retryLimit - context.retryCount - 1
        StandardError.write("lupine: \(failure); retrying in \(Self.seconds(wait)) s, \(left) \(left == 1 ? "retry" : "retries") left\n")
    }

    /// Says so when the one thing that stopped a retry is the server's `Retry-After`: retries
    /// are left, the method may be repeated, the budget was not spent already, and the wait it
    /// asks for would start the retry past the budget, or is longer than a session waits.
    private func explainAWaitTooLong(_ context: RetryContext) {
        guard let head = context.response,
            context.retryCount < self.policy.retryLimit,
            self.policy.retryableHTTPMethods.contains(context.request.method),
            self.policy.retryableHTTPMethods.contains(context.task.originalRequest.method),
            context.elapsed < self.policy.maximumTotalTime,
            let asked = self.retry.serverWait(in: context),
            asked > .zero
        else { return }
        let wait = asked >= CommandLineRetry.longestMeasured ? "of more than a year" : "of \(Self.seconds(asked)) s"
        let reason: String
        if context.elapsed + asked > self.policy.maximumTotalTime {
            reason = "which would go past the time allowed for retries (--retry-max-time \(Self.seconds(self.policy.maximumTotalTime)) s)"
        } else if asked > self.policy.maximumDelay {
            reason = "longer than lupine waits for a retry (\(Self.seconds(self.policy.maximumDelay)) s)"
        } else {
            return
        }
        StandardError.write("lupine: HTTP \(head.statusCode); its Retry-After asks for a wait \(wait), \(reason): not retrying\n")
    }

    /// `duration` in seconds with one decimal.
    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f", RetryAfter.seconds(of: duration))
    }
}
