/// Connection counts observed by a ``LupineTestServer`` across its main and fault listeners.
///
/// Tests use these to assert connection reuse: for example, several sequential keep-alive
/// requests should leave `accepted == 1`.
public struct ConnectionStatistics: Sendable, Equatable {
    /// Connections accepted since the server started or since the last
    /// ``LupineTestServer/resetConnectionStatistics()``.
    public var accepted: Int
    /// Connections open right now.
    public var open: Int
    /// The largest number of connections open at the same time since the server started or since
    /// the last reset.
    public var peakOpen: Int
    /// Connections closed as soon as they were accepted because
    /// ``LupineTestServer/Configuration/maximumConnections`` were already open; not counted in the
    /// other numbers.
    public var refused: Int
    /// The most HTTP/2 streams open at once on one connection since the server started, counted
    /// on a listener that announces its own settings (``LupineTestServer/HTTP2Faults/maximumConcurrentStreams``
    /// or ``LupineTestServer/HTTP2Faults/initialWindowSize``); 0 on others.
    public var peakOpenStreams: Int

    /// Creates statistics with explicit counts.
    public init(accepted: Int = 0, open: Int = 0, peakOpen: Int = 0, refused: Int = 0, peakOpenStreams: Int = 0) {
        self.accepted = accepted
        self.open = open
        self.peakOpen = peakOpen
        self.refused = refused
        self.peakOpenStreams = peakOpenStreams
    }
}
