extension Duration {
    /// This duration within what `Task.sleep` takes without trapping (it turns the deadline into
    /// 64-bit nanoseconds): from zero to about 68 years. For every wait of a delay that comes
    /// from a caller or a server (a retry's, a timeout, a throttle).
    package var sleepable: Duration {
        min(max(self, .zero), .seconds(Int64(Int32.max)))
    }
}
