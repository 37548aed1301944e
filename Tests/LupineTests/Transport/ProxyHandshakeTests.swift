import NIOCore
import NIOEmbedded
import Testing

@testable import LupineTransport

/// The proxies' handshakes by value: the bytes each sends, and what each answer of a proxy (whole,
/// cut into pieces, or several at once) calls for. `ProxyTests` runs them against real proxies.
struct ProxyHandshakeTests {
    private static let squid = Proxy(kind: .http, host: "proxy.test", port: 3128)
    private static let squidWithCredentials = Proxy(
        kind: .http, host: "proxy.test", port: 3128, credentials: .init(user: "ann", password: "s3cret"))

    private static func text(_ step: ProxyHandshakeStep) -> String? {
        guard case .send(let bytes) = step else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func connectNamesTheTargetAndCarriesCredentialsOnlyWhenThereAreSome() throws {
        let plain = HTTPConnectHandshake(proxy: Self.squid, host: "origin.test", port: 443)
        #expect(Self.text(plain.start()) == "CONNECT origin.test:443 HTTP/1.1\r\nHost: origin.test:443\r\n\r\n")
        let v6 = HTTPConnectHandshake(proxy: Self.squid, host: "::1", port: 8443)
        #expect(Self.text(v6.start())?.hasPrefix("CONNECT [::1]:8443 HTTP/1.1\r\n") == true)
        let withCredentials = HTTPConnectHandshake(proxy: Self.squidWithCredentials, host: "origin.test", port: 443)
        #expect(Self.text(withCredentials.start())?.contains("\r\nProxy-Authorization: Basic YW5uOnMzY3JldA==\r\n") == true)
    }

    @Test func aTwoHundredInPiecesOpensTheTunnelAndLeavesWhatFollowsForTheOrigin() {
        var handshake = HTTPConnectHandshake(proxy: Self.squid, host: "origin.test", port: 443)
        var received = ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n")
        #expect(handshake.read(&received) == .wait)
        received.writeString("\r\n\u{16}\u{03}")
        #expect(handshake.read(&received) == .open)
        #expect(Array(received.readableBytesView) == [0x16, 0x03])
        // A lone LF ends lines too (RFC 9112 §2.2).
        var bareHandshake = HTTPConnectHandshake(proxy: Self.squid, host: "origin.test", port: 443)
        var bare = ByteBuffer(string: "HTTP/1.0 200 OK\n\n")
        #expect(bareHandshake.read(&bare) == .open)
        #expect(bare.readableBytes == 0)
    }

    @Test(arguments: [
        ("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n", false, "it asks for credentials (407 Proxy Authentication Required)", false),
        ("HTTP/1.1 407 Nope\r\n\r\n", true, "it refused the credentials (407 Nope)", false),
        ("HTTP/1.1 503 Service Unavailable\r\n\r\n", false, "it refused the tunnel to origin.test:443 (503 Service Unavailable)", true),
        ("HTTP/1.1 403 Forbidden\r\n\r\n", false, "it refused the tunnel to origin.test:443 (403 Forbidden)", false),
        ("SSH-2.0-OpenSSH_9.2\r\n\r\n", false, "its answer to CONNECT is not HTTP", false),
    ])
    func anAnswerOtherThanATwoHundredFailsInWords(answer: String, credentials: Bool, words: String, mayPass: Bool) {
        var handshake = HTTPConnectHandshake(proxy: credentials ? Self.squidWithCredentials : Self.squid, host: "origin.test", port: 443)
        var received = ByteBuffer(string: answer)
        #expect(handshake.read(&received) == .fail(words, mayPass: mayPass))
    }

    /// An answer sent a byte at a time is scanned once, not from its start at every byte; an end
    /// of head split across reads is still found.
    @Test func anAnswerInBytesIsFoundWhereverItsEndIsSplit() {
        let answer = Array("HTTP/1.1 200 OK\r\nVia: 1.1 squid\r\n\r\nrest".utf8)
        var handshake = HTTPConnectHandshake(proxy: Self.squid, host: "origin.test", port: 443)
        var received = ByteBuffer()
        var step = ProxyHandshakeStep.wait
        for byte in answer where step == .wait {
            received.writeInteger(byte)
            step = handshake.read(&received)
        }
        #expect(step == .open)
        #expect(received.readableBytes == 0, "the end was found at the byte that made it")
    }

    @Test func anEndlessAnswerHeadIsRefusedAtItsLimit() {
        var handshake = HTTPConnectHandshake(proxy: Self.squid, host: "origin.test", port: 443)
        var received = ByteBuffer(string: "HTTP/1.1 200 OK\r\n")
        while received.readableBytes <= HTTPConnectHandshake.maximumHeadSize {
            #expect(handshake.read(&received) == .wait)
            received.writeString("X-Filler: \(String(repeating: "a", count: 100))\r\n")
        }
        #expect(handshake.read(&received) == .fail("its answer to CONNECT is longer than 16 KiB", mayPass: false))
    }

    private static func socks(_ target: SOCKS5Handshake.Target, credentials: Proxy.Credentials? = nil) -> SOCKS5Handshake {
        SOCKS5Handshake(target: target, credentials: credentials)
    }

    @Test func socksWithoutCredentialsAsksForTheTargetAndOpensOnItsReply() {
        var handshake = Self.socks(.name("origin.test", port: 443))
        #expect(handshake.start() == .send([0x05, 0x01, 0x00]))
        // The method choice and the reply at once, then the origin's first bytes.
        var received = ByteBuffer(bytes: [0x05, 0x00])
        let request = handshake.read(&received)
        #expect(request == .send([0x05, 0x01, 0x00, 0x03, 11] + Array("origin.test".utf8) + [0x01, 0xBB]))
        received.writeBytes([0x05, 0x00, 0x00, 0x01, 10, 0, 0, 1])
        #expect(handshake.read(&received) == .wait)
        received.writeBytes([0x01, 0xBB, 0x16])
        #expect(handshake.read(&received) == .open)
        #expect(Array(received.readableBytesView) == [0x16])
    }

    @Test func socksSendsCredentialsWhenAskedAndNamesTheirRefusal() {
        let credentials = Proxy.Credentials(user: "ann", password: "pw")
        var handshake = Self.socks(.address([127, 0, 0, 1], port: 80), credentials: credentials)
        #expect(handshake.start() == .send([0x05, 0x02, 0x00, 0x02]))
        var received = ByteBuffer(bytes: [0x05, 0x02])
        #expect(handshake.read(&received) == .send([0x01, 3] + Array("ann".utf8) + [2] + Array("pw".utf8)))
        received.writeBytes([0x01, 0x01])
        #expect(handshake.read(&received) == .fail("it refused the credentials", mayPass: false))

        var accepted = Self.socks(.address([127, 0, 0, 1], port: 80), credentials: credentials)
        _ = accepted.start()
        var answers = ByteBuffer(bytes: [0x05, 0x02])
        _ = accepted.read(&answers)
        answers.writeBytes([0x01, 0x00])
        #expect(accepted.read(&answers) == .send([0x05, 0x01, 0x00, 0x01, 127, 0, 0, 1, 0x00, 0x50]))
    }

    @Test(arguments: [
        ([UInt8]([0x05, 0xFF]), "it asks for credentials", false),
        ([0x04, 0x00], "it does not speak SOCKS5", false),
        ([0x05, 0x02], "it asks for credentials", false),
        ([0x05, 0x00, 0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0], "it could not connect to 10.0.0.1:443 (connection refused)", true),
        ([0x05, 0x00, 0x05, 0x02, 0x00, 0x01, 0, 0, 0, 0, 0, 0], "it could not connect to 10.0.0.1:443 (not allowed by its rules)", false),
        ([0x05, 0x00, 0x05, 0x00, 0x00, 0x09, 0, 0, 0, 0, 0, 0], "its reply names an unknown address type", false),
    ])
    func aSOCKSRefusalOrBabbleFailsInWords(answers: [UInt8], words: String, mayPass: Bool) {
        var handshake = Self.socks(.address([10, 0, 0, 1], port: 443))
        _ = handshake.start()
        var received = ByteBuffer(bytes: answers)
        var step = handshake.read(&received)
        while case .send = step {
            step = handshake.read(&received)
        }
        #expect(step == .fail(words, mayPass: mayPass))
    }

    /// A proxy that talks before it is asked (while the target's name is still looked up here)
    /// is heard out to 64 KiB, then refused: what it sends is not kept without end.
    @Test func aProxyTalkingBeforeItIsAskedIsCutOff() throws {
        let channel = EmbeddedChannel()
        let lookup = channel.eventLoop.makePromise(of: SOCKS5Handshake.self)
        let established = channel.eventLoop.makePromise(of: Void.self)
        let proxy = Proxy(kind: .socks5, host: "proxy.test", port: 1080)
        try channel.pipeline.syncOperations.addHandler(ProxyTunnel(proxy: proxy, handshake: lookup.futureResult, established: established))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1080)).wait()
        var failure: (any Error)?
        established.futureResult.whenFailure { failure = $0 }
        let chatter = ByteBuffer(repeating: 0x41, count: 16 * 1024)
        for _ in 0..<4 {
            try channel.writeInbound(chatter)
        }
        #expect(failure == nil, "64 KiB is still heard")
        try channel.writeInbound(chatter)
        guard case TransportError.proxyFailed(_, let reason)? = failure else {
            Issue.record("expected proxyFailed, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("before it was asked"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil, "nothing was sent to it")
        lookup.fail(CancellationError())
        _ = try? channel.finish()
    }

    /// A tunnel that leaves the pipeline before its connection to the proxy was ever open (the
    /// connect failed and the channel was torn down) fails its promise: nothing waits on it for
    /// ever, and what waits on it (the channel, the factory) is not kept alive by it.
    @Test func aTunnelRemovedBeforeItOpenedFailsItsPromise() throws {
        let channel = EmbeddedChannel()
        let established = channel.eventLoop.makePromise(of: Void.self)
        let handshake = channel.eventLoop.makeSucceededFuture(HTTPConnectHandshake(proxy: Self.squid, host: "origin.test", port: 443))
        let tunnel = ProxyTunnel(proxy: Self.squid, handshake: handshake, established: established)
        try channel.pipeline.syncOperations.addHandler(tunnel)
        var failure: (any Error)?
        established.futureResult.whenFailure { failure = $0 }
        // As NIO tears down a socket channel whose connect failed: handlers removed, and no
        // `channelInactive`, since it never was active.
        try channel.pipeline.syncOperations.removeHandler(tunnel).wait()
        guard case TransportError.proxyConnectionFailed(_, let reason)? = failure else {
            Issue.record("expected proxyConnectionFailed, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("before CONNECT"), "\(reason)")
        _ = try? channel.finish()
    }

    @Test func aNameSOCKSCannotCarryFailsBeforeAByteIsSent() {
        let handshake = Self.socks(.name(String(repeating: "a", count: 256), port: 443))
        guard case .fail(let words, mayPass: false) = handshake.start() else {
            Issue.record("a 256-byte name was sent")
            return
        }
        #expect(words.contains("255 bytes"))
    }
}
