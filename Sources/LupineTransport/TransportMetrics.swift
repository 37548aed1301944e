/// When each phase of one request happened, how many bytes went each way, and whether the
/// connection was reused. Phases that did not happen (no DNS lookup for a literal address, no TLS
/// for `http`, no connection setup on a reused connection) are `nil`.
public struct TransportMetrics: Sendable {
    // Instants are stored as durations since `referenceInstant`: `Duration` has a layout known
    // at compile time, so a copy of the metrics (made several times per request) is plain
    // bytes, where an optional `ContinuousClock.Instant`, a type of unknown layout, costs a
    // runtime call each.
    private var fetchStartOffset: Duration

    /// When the transport accepted the request.
    public var fetchStart: ContinuousClock.Instant {
        get { referenceInstant + self.fetchStartOffset }
        set { self.fetchStartOffset = newValue - referenceInstant }
    }
    /// Name resolution began.
    public var domainLookupStart: ContinuousClock.Instant? {
        get { Self.instant(self.domainLookupStartOffset) }
        set { self.domainLookupStartOffset = Self.offset(newValue) }
    }
    private var domainLookupStartOffset: Duration?
    /// Name resolution finished.
    public var domainLookupEnd: ContinuousClock.Instant? {
        get { Self.instant(self.domainLookupEndOffset) }
        set { self.domainLookupEndOffset = Self.offset(newValue) }
    }
    private var domainLookupEndOffset: Duration?
    /// The TCP connection attempt began (to the proxy, for a request that goes through one).
    public var connectStart: ContinuousClock.Instant? {
        get { Self.instant(self.connectStartOffset) }
        set { self.connectStartOffset = Self.offset(newValue) }
    }
    private var connectStartOffset: Duration?
    /// The TCP connection was established (to the proxy, for a request that goes through one).
    public var connectEnd: ContinuousClock.Instant? {
        get { Self.instant(self.connectEndOffset) }
        set { self.connectEndOffset = Self.offset(newValue) }
    }
    private var connectEndOffset: Duration?
    /// The proxy's tunnel to the origin began to be asked for (`CONNECT`, or the SOCKS5
    /// handshake); `nil` without a tunnel (no proxy, or a plain `http` request an HTTP proxy
    /// forwards).
    public var proxyConnectStart: ContinuousClock.Instant? {
        get { Self.instant(self.proxyConnectStartOffset) }
        set { self.proxyConnectStartOffset = Self.offset(newValue) }
    }
    private var proxyConnectStartOffset: Duration?
    /// The proxy's tunnel to the origin was open.
    public var proxyConnectEnd: ContinuousClock.Instant? {
        get { Self.instant(self.proxyConnectEndOffset) }
        set { self.proxyConnectEndOffset = Self.offset(newValue) }
    }
    private var proxyConnectEndOffset: Duration?
    /// The TLS handshake began.
    public var secureConnectionStart: ContinuousClock.Instant? {
        get { Self.instant(self.secureConnectionStartOffset) }
        set { self.secureConnectionStartOffset = Self.offset(newValue) }
    }
    private var secureConnectionStartOffset: Duration?
    /// The TLS handshake finished.
    public var secureConnectionEnd: ContinuousClock.Instant? {
        get { Self.instant(self.secureConnectionEndOffset) }
        set { self.secureConnectionEndOffset = Self.offset(newValue) }
    }
    private var secureConnectionEndOffset: Duration?
    /// The request head was written to the socket.
    public var requestHeadSent: ContinuousClock.Instant? {
        get { Self.instant(self.requestHeadSentOffset) }
        set { self.requestHeadSentOffset = Self.offset(newValue) }
    }
    private var requestHeadSentOffset: Duration?
    /// The last request body byte was written to the socket.
    public var requestBodySent: ContinuousClock.Instant? {
        get { Self.instant(self.requestBodySentOffset) }
        set { self.requestBodySentOffset = Self.offset(newValue) }
    }
    private var requestBodySentOffset: Duration?
    /// The first response byte arrived.
    public var responseStart: ContinuousClock.Instant? {
        get { Self.instant(self.responseStartOffset) }
        set { self.responseStartOffset = Self.offset(newValue) }
    }
    private var responseStartOffset: Duration?
    /// The response was complete, or the request failed.
    public var responseEnd: ContinuousClock.Instant? {
        get { Self.instant(self.responseEndOffset) }
        set { self.responseEndOffset = Self.offset(newValue) }
    }
    private var responseEndOffset: Duration?
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
    /// Whether the request went through a proxy (a tunnel or an HTTP proxy forwarding it).
    public var isProxyConnection: Bool = false
    /// The protocol the request went over, by its ALPN name (as URLSession's metrics name it):
    /// `h2` or `http/1.1`.
    public var networkProtocolName: String?

    /// Time spent resolving the host name.
    public var domainLookupDuration: Duration? { Self.span(self.domainLookupStart, self.domainLookupEnd) }
    /// Time spent establishing the TCP connection.
    public var connectDuration: Duration? { Self.span(self.connectStart, self.connectEnd) }
    /// Time spent opening the proxy's tunnel to the origin.
    public var proxyConnectDuration: Duration? { Self.span(self.proxyConnectStart, self.proxyConnectEnd) }
    /// Time spent in the TLS handshake.
    public var secureConnectionDuration: Duration? { Self.span(self.secureConnectionStart, self.secureConnectionEnd) }
    /// From the request head being sent to the first response byte.
    public var timeToFirstByte: Duration? { Self.span(self.requestHeadSent, self.responseStart) }
    /// From acceptance to completion.
    public var totalDuration: Duration? { Self.span(self.fetchStart, self.responseEnd) }

    init(fetchStart: ContinuousClock.Instant) {
        self.fetchStartOffset = fetchStart - referenceInstant
    }

    /// The instants the transport marks as they happen.
    enum Phase {
        case domainLookupStart, domainLookupEnd, connectStart, connectEnd, proxyConnectStart, proxyConnectEnd
        case secureConnectionStart, secureConnectionEnd, requestHeadSent, requestBodySent, responseStart, responseEnd
    }

    /// Sets `phase` to `instant` unless it is already set. A switch over the stored offsets: a key
    /// path to the public properties would go through the runtime's generic metadata per call.
    mutating func mark(_ phase: Phase, at instant: ContinuousClock.Instant) {
        let offset = instant - referenceInstant
        switch phase {
        case .domainLookupStart: Self.setOnce(&self.domainLookupStartOffset, offset)
        case .domainLookupEnd: Self.setOnce(&self.domainLookupEndOffset, offset)
        case .connectStart: Self.setOnce(&self.connectStartOffset, offset)
        case .connectEnd: Self.setOnce(&self.connectEndOffset, offset)
        case .proxyConnectStart: Self.setOnce(&self.proxyConnectStartOffset, offset)
        case .proxyConnectEnd: Self.setOnce(&self.proxyConnectEndOffset, offset)
        case .secureConnectionStart: Self.setOnce(&self.secureConnectionStartOffset, offset)
        case .secureConnectionEnd: Self.setOnce(&self.secureConnectionEndOffset, offset)
        case .requestHeadSent: Self.setOnce(&self.requestHeadSentOffset, offset)
        case .requestBodySent: Self.setOnce(&self.requestBodySentOffset, offset)
        case .responseStart: Self.setOnce(&self.responseStartOffset, offset)
        case .responseEnd: Self.setOnce(&self.responseEndOffset, offset)
        }
    }

    private static func setOnce(_ stored: inout Duration?, _ offset: Duration) {
        if stored == nil {
            stored = offset
        }
    }

    private static func instant(_ offset: Duration?) -> ContinuousClock.Instant? {
        offset.map { referenceInstant + $0 }
    }

    private static func offset(_ instant: ContinuousClock.Instant?) -> Duration? {
        instant.map { $0 - referenceInstant }
    }

    private static func span(_ start: ContinuousClock.Instant?, _ end: ContinuousClock.Instant?) -> Duration? {
        guard let start, let end else { return nil }
        return end - start
    }
}

/// The instant the stored offsets of every ``TransportMetrics`` count from.
private let referenceInstant = ContinuousClock.now

extension TransportMetrics: CustomReflectable {
    /// The named instants and counts, as `print` and `dump` should show them (not the stored offsets).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "fetchStart": self.fetchStart,
                "domainLookupStart": self.domainLookupStart as Any,
                "domainLookupEnd": self.domainLookupEnd as Any,
                "connectStart": self.connectStart as Any,
                "connectEnd": self.connectEnd as Any,
                "proxyConnectStart": self.proxyConnectStart as Any,
                "proxyConnectEnd": self.proxyConnectEnd as Any,
                "secureConnectionStart": self.secureConnectionStart as Any,
                "secureConnectionEnd": self.secureConnectionEnd as Any,
                "requestHeadSent": self.requestHeadSent as Any,
                "requestBodySent": self.requestBodySent as Any,
                "responseStart": self.responseStart as Any,
                "responseEnd": self.responseEnd as Any,
                "bytesSent": self.bytesSent,
                "bytesReceived": self.bytesReceived,
                "bodyBytesSent": self.bodyBytesSent,
                "bodyBytesReceived": self.bodyBytesReceived,
                "isReusedConnection": self.isReusedConnection,
                "isProxyConnection": self.isProxyConnection,
                "remoteAddress": self.remoteAddress as Any,
                "networkProtocolName": self.networkProtocolName as Any,
            ],
            displayStyle: .struct
        )
    }
}
