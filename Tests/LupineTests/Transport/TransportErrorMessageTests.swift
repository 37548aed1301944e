import Foundation
import Lupine
import LupineTestServer
import NIOCore
import Testing

/// Every failure reads as one plain sentence a person can act on: no errno numbers, no
/// parenthesised internals, no build paths, no parser names, and never a URL's password.
@Suite struct TransportErrorMessageTests {
    /// Fails the test unless `message` is one plain line.
    private static func expectPlain(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!message.isEmpty, sourceLocation: sourceLocation)
        #expect(!message.contains { $0.isNewline }, "\(message)", sourceLocation: sourceLocation)
        for fragment in ["errno", "(", "http_parser", "OPENSSL", ".cc:", ".c:", "/Sources/", "secret"] {
            #expect(!message.contains(fragment), "\(message) contains \(fragment)", sourceLocation: sourceLocation)
        }
    }

    /// The description of the error `body` throws.
    private static func failure(of body: () async throws -> Void) async -> String {
        do {
            try await body()
            Issue.record("expected an error")
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func aRefusedConnectionNamesTheAddress() async throws {
        let closed = try ClosedPort()
        let closedURL = closed.url
        let transport = NIOTransport()
        let message = await Self.failure { _ = try await transport.get(closedURL.appending("/get")) }
        await transport.shutdown()
        #expect(message == "connection refused by 127.0.0.1:\(closedURL.port ?? 0)")
        Self.expectPlain(message)
    }

    @Test func anUnresolvableHostIsNamed() async throws {
        let transport = NIOTransport()
        let url = try #require(URL(string: "http://lupine-test.invalid/get"))
        let message = await Self.failure { _ = try await transport.get(url) }
        await transport.shutdown()
        #expect(message == "could not resolve host lupine-test.invalid")
        Self.expectPlain(message)
    }

    @Test(arguments: [
        ("/malformed-status-line", "the server's response is not HTTP/1.x"),
        ("/oversized-headers", "the server's response headers exceed the 80 KiB limit"),
    ])
    func aProtocolViolationSaysWhatIsWrong(path: String, expected: String) async throws {
        try await withServerAndTransport { server, transport in
            let message = await Self.failure { _ = try await transport.get(server.faultsBaseURL.appending(path)) }
            #expect(message == expected)
            Self.expectPlain(message)
        }
    }

    @Test func anUntrustedCertificateSaysWhy() async throws {
        try await withServerAndTransport(server: .init(tls: true)) { server, transport in
            let message = await Self.failure { _ = try await transport.get(server.baseURL.appending("/get")) }
            #expect(message.hasPrefix("the certificate of 127.0.0.1 is not trusted: "))
            Self.expectPlain(message)
        }
        try await withSessionManager(server: .init(tls: true)) { _, manager in
            let message = await Self.failure { _ = try await manager.get("get", parameters: nil) }
            #expect(message.hasPrefix("the certificate of 127.0.0.1 is not trusted: "))
            Self.expectPlain(message)
        }
    }

    @Test func tlsToAPlainHTTPPortIsAHandshakeFailureInWords() async throws {
        try await withServerAndTransport { server, transport in
            let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/get"))
            let message = await Self.failure { _ = try await transport.get(url) }
            #expect(message == "TLS handshake with 127.0.0.1 failed: the server does not speak TLS on this port")
            Self.expectPlain(message)
        }
    }

    @Test func aTimedOutConnectionAndTimeoutsReadAsSentences() {
        let connect = TransportError.connectTimeout(host: "::1", port: 8080, timeout: .seconds(10))
        #expect(connect.description == "connection to [::1]:8080 timed out after 10 s")
        #expect(TransportError.requestTimeout(timeout: .milliseconds(300)).description == "the request did not complete within 0.3 s")
        #expect(TransportError.readTimeout(timeout: .seconds(60)).description == "the server sent nothing for 60 s")
        for error in [connect, .requestTimeout(timeout: .milliseconds(300)), .connectionClosedMidBody(receivedBytes: 1, expectedBytes: 2)] {
            Self.expectPlain(error.description)
        }
    }

    @Test(arguments: [
        "http://u:secret@exa mple.com/",
        "https://user:secret@[::1]:99999999/path",
        "http://u:sec/ret@host/path?",
        "u:secret@host/\n",
        "http://u:secret@host/\r\nInjected: header",
    ])
    func anInvalidURLNeverShowsItsPassword(url: String) {
        for message in [LupineError.invalidURL(url).description, TransportError.invalidURL(url).description] {
            Self.expectPlain(message)
            #expect(message.contains("***@"), "\(message)")
        }
    }

    @Test func aURLWithAPasswordIsRedactedWhereverItAppears() throws {
        let url = try #require(URL(string: "http://user:secret@example.com/a"))
        let messages = [
            LupineError.redirectFailed(.loop(url)).description,
            LupineError.downloadFailed(.resumeDataForAnotherURL(expected: url, found: url)).description,
            LupineError.pinningRequiresSecureBaseURL(url).description,
            LupineError.multipartEncodingFailed(.fileURLInvalid(url)).description,
        ]
        for message in messages {
            Self.expectPlain(message)
            #expect(message.contains("http://user:***@example.com/a"), "\(message)")
        }
    }

    @Test func aStatusErrorForAURLWithCredentialsHidesThePassword() async throws {
        try await withSessionManager { server, manager in
            let url = "http://user:secret@127.0.0.1:\(server.port)/status/404"
            let message = await Self.failure { _ = try await manager.get(url, parameters: nil) }
            #expect(message.hasPrefix("the server answered 404 not found for http://"))
            Self.expectPlain(message)
        }
    }

    @Test func hugeOrControlLadenInputIsBoundedToOneLine() {
        let huge = "http://example.com/" + String(repeating: "a", count: 100_000) + "\u{0}\n"
        let message = LupineError.invalidURL(huge).description
        Self.expectPlain(message)
        #expect(message.count < 400)
        let nul = LupineError.invalidURL("http://exa\u{0}mple.com/\u{7}").description
        #expect(!nul.unicodeScalars.contains { $0.properties.generalCategory == .control })
        Self.expectPlain(nul)
        let spoofed = LupineError.invalidURL("http://example.com/\u{202E}gpj.exe\u{2028}x").description
        #expect(spoofed.contains("\\u{202E}") && spoofed.contains("\\u{2028}"), "\(spoofed)")
    }
}
