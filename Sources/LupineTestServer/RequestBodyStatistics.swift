/// Request-body bytes that a ``LupineTestServer``'s echo endpoints (`/post`, `/put`, `/patch`,
/// `/delete`, `/anything`) hold in memory, within
/// ``LupineTestServer/Configuration/requestBodyBudget``.
public struct RequestBodyStatistics: Sendable, Equatable {
    /// Bytes reserved right now by requests being read or answered; zero when none are.
    public var bufferedBytes: Int
    /// The most bytes reserved at the same time since the server started.
    public var peakBufferedBytes: Int
    /// Requests answered 413 or 503 because their body did not fit.
    public var rejectedRequests: Int

    /// Creates statistics with explicit counts.
    public init(bufferedBytes: Int = 0, peakBufferedBytes: Int = 0, rejectedRequests: Int = 0) {
        self.bufferedBytes = bufferedBytes
        self.peakBufferedBytes = peakBufferedBytes
        self.rejectedRequests = rejectedRequests
    }
}
