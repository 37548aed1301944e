import NIOCore

/// The misbehaviours the fault listener can be asked for, by request path.
enum FaultEndpoint: Equatable {
    /// `/close-mid-body`: `Content-Length: 1000`, 400 bytes, then close.
    case closeMidBody
    /// `/stall-after-headers`: a head promising 100 bytes, then silence until the connection closes.
    case stallAfterHeaders
    /// `/stall-before-headers`: no answer at all.
    case stallBeforeHeaders
    /// `/stop-reading`: no answer, and nothing more is read from the connection, so a request
    /// body fills the socket buffers and then stalls.
    case stopReading
    /// `/malformed-status-line`: a status line HTTP parsers reject, then close.
    case malformedStatusLine
    /// `/oversized-headers`: about 200 KiB of header lines, then close.
    case oversizedHeaders
    /// `/content-length-too-long`: `Content-Length: 100`, 60 bytes, then close.
    case contentLengthTooLong
    /// `/drip?bytes=N&interval_ms=M`: N bytes, one every M milliseconds.
    case drip(bytes: Int, interval: TimeAmount)
    /// `/interrupt?bytes=N&at=K`: N bytes of ``DeterministicBytes`` with an `ETag` and
    /// `Accept-Ranges`, cut off by a close after K bytes; a `Range: bytes=S-` request (with a
    /// matching or no `If-Range`) gets the rest, whole, as a `206`. For resumable downloads.
    /// With `then=stall` the connection stays open and silent after K bytes instead of closing
    /// (for interrupting a client mid-body); with `etag=none` no `ETag` is sent, so the body has
    /// no validator.
    case interrupt(bytes: Int, at: Int, rangeStart: Int?, stalls: Bool, sendsEntityTag: Bool)
    /// `/endless-redirect?to=URL`: a `302 Found` to URL whose chunked body never ends: 16 KiB
    /// chunks for as long as the client reads them (up to ``maximumEndlessBytes``, then a close).
    case endlessRedirect(location: String)
    /// `/cut-redirect?to=URL`: a `302 Found` to URL whose body is cut short: `Content-Length:
    /// 1000`, 400 bytes, then close.
    case cutRedirect(location: String)
    /// `/bodied-redirect?to=URL&bytes=N&chunked=true`: a keep-alive `302 Found` to URL with a
    /// whole body of N filler bytes (0...``maximumDripBytes``), framed by `Content-Length` or,
    /// with `chunked=true`, in 16 KiB chunks.
    case bodiedRedirect(location: String, bytes: Int, chunked: Bool)
    /// `/bodied-challenge?bytes=N&chunked=true`: without `Authorization`, a keep-alive `401` with
    /// a Basic challenge and a body framed as `/bodied-redirect`'s; with it, a 404 as any other
    /// path.
    case bodiedChallenge(bytes: Int, chunked: Bool)
    /// `/keep-alive-once`: a keep-alive answer; any later request on the connection is read and
    /// then met with a silent close.
    case keepAliveOnce
    /// `/http10`: an HTTP/1.0 response delimited by closing the connection.
    case http10
    /// `/connection-close`: a complete response with `Connection: close`, then close.
    case connectionClose
    /// A request the listener cannot serve, with the reason.
    case badRequest(String)
    /// Any other path.
    case notFound

    /// Largest body `/endless-redirect` sends before it stops (without ending it).
    static let maximumEndlessBytes = 1 << 30

    /// Largest body `/drip` sends.
    static let maximumDripBytes = 10 * 1024 * 1024

    init(_ request: FaultRequest) {
        switch request.path {
        case "/close-mid-body": self = .closeMidBody
        case "/stall-after-headers": self = .stallAfterHeaders
        case "/stall-before-headers": self = .stallBeforeHeaders
        case "/stop-reading": self = .stopReading
        case "/malformed-status-line": self = .malformedStatusLine
        case "/oversized-headers": self = .oversizedHeaders
        case "/content-length-too-long": self = .contentLengthTooLong
        case "/keep-alive-once": self = .keepAliveOnce
        case "/http10": self = .http10
        case "/connection-close": self = .connectionClose
        case "/drip": self = Self.drip(query: request.query)
        case "/interrupt": self = Self.interrupt(request)
        case "/endless-redirect": self = Self.redirect(request, to: Self.endlessRedirect)
        case "/cut-redirect": self = Self.redirect(request, to: Self.cutRedirect)
        case "/bodied-redirect":
            self = Self.bodied(request) { bytes, chunked in Self.redirect(request) { .bodiedRedirect(location: $0, bytes: bytes, chunked: chunked) } }
        case "/bodied-challenge" where request.header("Authorization") == nil:
            self = Self.bodied(request) { .bodiedChallenge(bytes: $0, chunked: $1) }
        default: self = .notFound
        }
    }

    /// Largest body `/interrupt` sends.
    static let maximumInterruptBytes = 256 * 1024 * 1024

    /// The strong entity tag of `/interrupt`'s body of `bytes` bytes.
    static func interruptEntityTag(bytes: Int) -> String { "\"interrupt-\(bytes)\"" }

    private static func interrupt(_ request: FaultRequest) -> FaultEndpoint {
        let bytes = FormURLEncoding.firstValue(named: "bytes", in: request.query).map { Int($0) } ?? 1024
        guard let bytes, (1...maximumInterruptBytes).contains(bytes) else {
            return .badRequest("bytes must be an integer in 1...\(maximumInterruptBytes)")
        }
        let at = FormURLEncoding.firstValue(named: "at", in: request.query).map { Int($0) } ?? bytes / 2
        guard let at, (0..<bytes).contains(at) else {
            return .badRequest("at must be an integer in 0..<bytes")
        }
        let stalls = FormURLEncoding.firstValue(named: "then", in: request.query) == "stall"
        let sendsEntityTag = FormURLEncoding.firstValue(named: "etag", in: request.query) != "none"
        let ifRange = request.header("If-Range")
        guard let range = request.header("Range"), ifRange == nil || ifRange == interruptEntityTag(bytes: bytes),
            range.hasPrefix("bytes="), range.hasSuffix("-"),
            let start = Int(range.dropFirst("bytes=".count).dropLast()), (0..<bytes).contains(start)
        else {
            return .interrupt(bytes: bytes, at: at, rangeStart: nil, stalls: stalls, sendsEntityTag: sendsEntityTag)
        }
        return .interrupt(bytes: bytes, at: at, rangeStart: start, stalls: stalls, sendsEntityTag: sendsEntityTag)
    }

    /// A redirect endpoint's answer (`make` with its `to`), or a 400 when `to` is missing, empty
    /// or holds a control character (a line break would end the `Location` line; NUL or TAB have
    /// no place in a URL).
    private static func redirect(_ request: FaultRequest, to make: (String) -> FaultEndpoint) -> FaultEndpoint {
        let location = FormURLEncoding.firstValue(named: "to", in: request.query) ?? ""
        let refused = location.isEmpty || location.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.isWhitespace && $0 != " " }
        return refused ? .badRequest("to must name where to redirect") : make(location)
    }

    /// `make` with a bodied endpoint's `bytes` and `chunked`, or a 400 for a bad `bytes`.
    private static func bodied(_ request: FaultRequest, _ make: (Int, Bool) -> FaultEndpoint) -> FaultEndpoint {
        let bytes = FormURLEncoding.firstValue(named: "bytes", in: request.query).map { Int($0) } ?? 0
        guard let bytes, (0...maximumDripBytes).contains(bytes) else {
            return .badRequest("bytes must be an integer in 0...\(maximumDripBytes)")
        }
        return make(bytes, FormURLEncoding.firstValue(named: "chunked", in: request.query) == "true")
    }

    private static func drip(query: String?) -> FaultEndpoint {
        let bytes = FormURLEncoding.firstValue(named: "bytes", in: query).map { Int($0) } ?? 10
        let interval = FormURLEncoding.firstValue(named: "interval_ms", in: query).map { Int64($0) } ?? 100
        guard let bytes, (0...maximumDripBytes).contains(bytes) else {
            return .badRequest("bytes must be an integer in 0...\(maximumDripBytes)")
        }
        guard let interval, (0...60_000).contains(interval) else {
            return .badRequest("interval_ms must be an integer in 0...60000")
        }
        return .drip(bytes: bytes, interval: .milliseconds(interval))
    }
}
