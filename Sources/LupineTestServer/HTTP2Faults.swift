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

        /// Creates a set of faults; the default injects none.
        public init(goAwayEvery: Int? = nil, goAwayErrorCode: UInt32 = 0, refuseEvery: Int? = nil) {
            self.goAwayEvery = goAwayEvery
            self.goAwayErrorCode = goAwayErrorCode
            self.refuseEvery = refuseEvery
        }
    }
}
