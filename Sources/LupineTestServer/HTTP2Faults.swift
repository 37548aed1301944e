extension LupineTestServer {
    /// What an HTTP/2 listener does wrong on purpose, counted per connection, so a client's tests
    /// can meet a GOAWAY and a refused stream when they choose. Nothing by default.
    public struct HTTP2Faults: Sendable, Equatable {
        /// After every this many streams of a connection, the server sends GOAWAY naming the last
        /// of them as the last it processes, as nginx does every `keepalive_requests` (1,000):
        /// streams the client opened after it are never answered, and the connection takes no
        /// new one.
        public var goAwayEvery: Int?
        /// The GOAWAY's error code: 0 (`NO_ERROR`) is graceful and the streams at or below it are
        /// answered; any other code closes the connection straight after it, unanswered.
        public var goAwayErrorCode: UInt32
        /// Every this many streams of a connection, the stream is reset with `REFUSED_STREAM`
        /// before its request is looked at (RFC 9113 §8.7: the client may send it again).
        public var refuseEvery: Int?
        /// The `SETTINGS_MAX_CONCURRENT_STREAMS` the listener announces in its first SETTINGS and
        /// enforces (a stream over it is refused); 100 when nil, as NIOHTTP2's default.
        public var maximumConcurrentStreams: Int?
        /// The `SETTINGS_INITIAL_WINDOW_SIZE` the listener announces, so a client's uploads go
        /// in pieces this small, each waiting for a `WINDOW_UPDATE`; 65,535 when nil.
        public var initialWindowSize: Int?
        /// How many streams a client may reset on one connection within 30 seconds (and how many
        /// stream errors, which the late frames of reset streams become) before the listener
        /// takes them for an attack (RFC 9113 §10.5) and answers `GOAWAY(ENHANCE_YOUR_CALM)`
        /// naming stream 0, which drops every stream; NIOHTTP2's 200 when nil. nginx keeps no
        /// such count: a client that cancels 1 % of 4,000 requests a second resets 200 streams
        /// every 5 seconds.
        public var maximumResetStreams: Int?

        /// Whether the listener sets NIOHTTP2 up itself (settings of its own, a reset limit),
        /// which Hummingbird's HTTP/2 channel does not let a server do. Over TLS it then offers
        /// only `h2` by ALPN, and an HTTP/2 connection it serves is not closed for being idle.
        var configuresNIOHTTP2: Bool {
            self.maximumConcurrentStreams != nil || self.initialWindowSize != nil || self.maximumResetStreams != nil
        }

        /// Creates a set of faults; the default injects none.
        public init(
            goAwayEvery: Int? = nil,
            goAwayErrorCode: UInt32 = 0,
            refuseEvery: Int? = nil,
            maximumConcurrentStreams: Int? = nil,
            initialWindowSize: Int? = nil,
            maximumResetStreams: Int? = nil
        ) {
            self.goAwayEvery = goAwayEvery
            self.goAwayErrorCode = goAwayErrorCode
            self.refuseEvery = refuseEvery
            self.maximumConcurrentStreams = maximumConcurrentStreams
            self.initialWindowSize = initialWindowSize
            self.maximumResetStreams = maximumResetStreams
        }
    }
}
