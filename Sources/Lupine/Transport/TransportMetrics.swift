/// When each phase of one request happened, how many bytes went each way, and whether the
/// connection was reused. Phases that did not happen (no DNS lookup for a literal address, no TLS
/// for `http`, no connection setup on a reused connection) are `nil`.
public struct TransportMetrics: Sendable {
    /// When the transport accepted the request.
    public var fetchStart: ContinuousClock.Instant
    /// Name resolution began.
    public var domainLookupStart: ContinuousClock.Instant?
    /// Name resolution finished.
    public var domainLookupEnd: ContinuousClock.Instant?
    /// The TCP connection attempt began.
    public var connectStart: ContinuousClock.Instant?
    /// The TCP connection was established.
    public var connectEnd: ContinuousClock.Instant?
    /// The TLS handshake began.
    public var secureConnectionStart: ContinuousClock.Instant?
    /// The TLS handshake finished.
    public var secureConnectionEnd: ContinuousClock.Instant?
    /// The request head was written to the socket.
    public var requestHeadSent: ContinuousClock.Instant?
    /// The last request body byte was written to the socket.
    public var requestBodySent: ContinuousClock.Instant?
    /// The first response byte arrived.
    public var responseStart: ContinuousClock.Instant?
    /// The response was complete, or the request failed.
    public var responseEnd: ContinuousClock.Instant?
    /// Bytes written to the connection for this request (head and body, before TLS).
    public var bytesSent: Int = 0
    /// Bytes read from the connection for this response (head and body, before TLS and decompression).
    public var bytesReceived: Int = 0
    /// Body bytes sent (uncompressed, as produced by the request body).
    public var bodyBytesSent: Int = 0
    /// Body bytes delivered (after decompression).
    public var bodyBytesReceived: Int = 0
    /// Whether the request ran on a connection that had served an earlier request.
    public var isReusedConnection: Bool = false
    /// The peer's address, as `ip:port`.
    public var remoteAddress: String?

    /// Time spent resolving the host name.
    public var domainLookupDuration: Duration? { Self.span(self.domainLookupStart, self.domainLookupEnd) }
    /// Time spent establishing the TCP connection.
    public var connectDuration: Duration? { Self.span(self.connectStart, self.connectEnd) }
    /// Time spent in the TLS handshake.
    public var secureConnectionDuration: Duration? { Self.span(self.secureConnectionStart, self.secureConnectionEnd) }
    /// From the request head being sent to the first response byte.
    public var timeToFirstByte: Duration? { Self.span(self.requestHeadSent, self.responseStart) }
    /// From acceptance to completion.
    public var totalDuration: Duration? { Self.span(self.fetchStart, self.responseEnd) }

    init(fetchStart: ContinuousClock.Instant) {
        self.fetchStart = fetchStart
    }

    private static func span(_ start: ContinuousClock.Instant?, _ end: ContinuousClock.Instant?) -> Duration? {
        guard let start, let end else { return nil }
        return end - start
    }
}
