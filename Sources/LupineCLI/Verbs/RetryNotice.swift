import Lupine

/// Says on standard error when a request is about to be sent again, as curl's "Will retry"
/// warning does: which failure, how long the wait, how many retries are left. Without it a
/// Retry-After wait looks like a hang. With `-v` the answer that is retried is shown first, as
/// `curl -v` shows every response; the final one is shown by the exchange.
struct RetryNotice: EventMonitor {
    let retryLimit: Int
    let showsHeads: Bool

    func task(_ task: SessionTask, didDecide decision: RetryDecision, for context: RetryContext) {
        let wait: Duration
        switch decision {
        case .retry: wait = .zero
        case .retryAfter(let delay): wait = delay
        case .doNotRetry, .doNotRetryWithError: return
        }
        if self.showsHeads, let head = context.response {
            StandardError.write(TerminalText.sanitized(ExchangeFormatter.responseHead(head)) + "\n")
        }
        let failure = context.response.map { "HTTP \($0.statusCode)" } ?? context.error.description
        let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
        let left = self.retryLimit - context.retryCount - 1
        StandardError.write("lupine: \(failure); retrying in \(String(format: "%.1f", seconds)) s, \(left) \(left == 1 ? "retry" : "retries") left\n")
    }
}
