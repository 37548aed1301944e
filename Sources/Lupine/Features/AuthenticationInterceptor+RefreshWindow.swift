extension AuthenticationInterceptor {
    /// How many refreshes an ``AuthenticationInterceptor`` starts within a sliding interval before
    /// it decides the server refuses every credential and fails with
    /// ``LupineError/AuthenticationFailureReason/excessiveRefresh(count:interval:)``.
    public struct RefreshWindow: Sendable {
        /// The length of the sliding interval.
        public let interval: Duration
        /// How many refreshes may start within ``interval``; one more fails instead.
        public let maximumAttempts: Int

        /// A window of at most `maximumAttempts` refreshes (5 by default) within `interval` (30 s by
        /// default). A negative count counts as 0 (never refresh), a negative interval as zero
        /// (no limit).
        public init(interval: Duration = .seconds(30), maximumAttempts: Int = 5) {
            self.interval = max(.zero, interval)
            self.maximumAttempts = max(0, maximumAttempts)
        }
    }
}
