import Foundation
import Lupine
import LupineTestServer
import Testing

/// Header fields HTTP does not allow are a typed error naming the header at every entry point,
/// never a trap (NIO's `HTTPHeaders.add` precondition on a non-ASCII name) nor a message that
/// blames the server.
@Suite struct HeaderFieldValidationTests {
    /// Fields that must be refused, with the name the error must carry.
    static let invalidFields: [(name: String, value: String)] = [
        ("Xé", "1"),
        ("", "1"),
        ("X Y", "1"),
        ("X:Y", "1"),
        ("X\r\nInjected", "1"),
        ("X-Injection", "a\r\nInjected: 1"),
        ("X-Line-Feed", "a\nb"),
        ("X-Null", "a\u{0}b"),
        ("X-Control", "a\u{1}b"),
        ("X-Delete", "a\u{7F}b"),
    ]

    /// Fields that must pass: every token character, a tab and obs-text (UTF-8) in a value.
    static let validFields: [(name: String, value: String)] = [
        ("!#$%&'*+-.^_`|~09azAZ", "x"),
        ("X-Tab", "a\tb"),
        ("X-Text", "café ☕"),
        ("X-Empty", ""),
    ]

    @Test func setValueStoresAnyNameWithoutTrapping() {
        var request = Request(url: URL(fileURLWithPath: "/"))
        request.setValue("1", forHTTPHeaderField: "Xé")
        request.setValue("2", forHTTPHeaderField: "Xé")
        #expect(request.value(forHTTPHeaderField: "Xé") == "2")
        #expect(request.headers.count == 1)
        var serializer = HTTPRequestSerializer()
        serializer.setValue("1", forHTTPHeaderField: "Xé")
        #expect(serializer.value(forHTTPHeaderField: "Xé") == "1")
    }

    @Test(arguments: invalidFields)
    func serializersRefuseAnInvalidDefaultHeader(name: String, value: String) throws {
        var serializer = HTTPRequestSerializer()
        serializer.setValue(value, forHTTPHeaderField: name)
        let builders: [() throws -> Request] = [
            { try serializer.request(method: .GET, urlString: "http://example.com/") },
            { try serializer.request(method: .POST, urlString: "http://example.com/", parameters: ["a": "b"]) },
            { try JSONRequestSerializer(base: serializer).request(method: .POST, urlString: "http://example.com/", parameters: [:]) },
            { try PropertyListRequestSerializer(base: serializer).request(method: .PUT, urlString: "http://example.com/") },
            { try serializer.multipartFormRequest(method: .POST, urlString: "http://example.com/") { _ in } },
        ]
        for build in builders {
            let error = #expect(throws: LupineError.self) { try build() }
            #expect(Self.invalidHeaderName(error) == name)
        }
    }

    @Test(arguments: invalidFields)
    func serializeRefusesAnInvalidHeaderOfTheRequest(name: String, value: String) throws {
        var request = Request(url: try #require(URL(string: "http://example.com/")), method: .POST)
        request.setValue(value, forHTTPHeaderField: name)
        let error = #expect(throws: LupineError.self) { try HTTPRequestSerializer().serialize(request, parameters: nil) }
        #expect(Self.invalidHeaderName(error) == name)
    }

    @Test(arguments: validFields)
    func serializersAcceptValidHeaders(name: String, value: String) throws {
        var serializer = HTTPRequestSerializer()
        serializer.setValue(value, forHTTPHeaderField: name)
        let request = try serializer.request(method: .GET, urlString: "http://example.com/")
        #expect(request.value(forHTTPHeaderField: name) == value)
    }

    @Test func aHugeValueIsScannedToItsLastByte() throws {
        let huge = String(repeating: "v", count: 4 * 1024 * 1024)
        var request = Request(url: try #require(URL(string: "http://example.com/")))
        request.setValue(huge, forHTTPHeaderField: "X-Huge")
        #expect(try HTTPRequestSerializer().serialize(request, parameters: nil).value(forHTTPHeaderField: "X-Huge")?.count == huge.count)
        request.setValue(huge + "\r", forHTTPHeaderField: "X-Huge")
        let error = #expect(throws: LupineError.self) { try HTTPRequestSerializer().serialize(request, parameters: nil) }
        #expect(Self.invalidHeaderName(error) == "X-Huge")
    }

    @Test func transportRefusesInvalidHeadersBeforeConnecting() async throws {
        try await withServerAndTransport { server, transport in
            for field in Self.invalidFields {
                let request = TransportRequest(url: server.baseURL.appending("/headers"), headers: HTTPHeaders([(field.name, field.value)]), cancellation: TransportCancellation())
                let error = await #expect(throws: TransportError.self) { try await transport.execute(request) }
                guard case .invalidHeader(let name, _) = error else {
                    Issue.record("expected TransportError.invalidHeader for \(field.name.debugDescription), got \(String(describing: error))")
                    continue
                }
                #expect(name == field.name)
            }
            #expect(server.connections.accepted == 0)
        }
    }

    @Test func sessionTaskFailsWithTheTypedErrorAndSendsNothing() async throws {
        try await withSessionManager { server, manager in
            for field in Self.invalidFields {
                // The manager's `headers:` go through the non-throwing `Request.setValue`.
                let request = try manager.makeRequest(.GET, "headers", parameters: nil, headers: [field.name: field.value])
                let error = await #expect(throws: LupineError.self) {
                    try await manager.response(for: request, serializer: JSONResponseSerializer())
                }
                #expect(Self.invalidHeaderName(error) == field.name)
                #expect(error?.description.hasPrefix("Invalid header \(field.name.debugDescription): ") == true)
                #expect(error?.description.contains("server") == false)
            }
            #expect(server.connections.accepted == 0)
        }
    }

    @Test func headerAddedByARedirectHookIsCheckedBeforeTheNextHop() async throws {
        try await withSessionManager { _, manager in
            var hooks = SessionHooks()
            hooks.willPerformRedirection = { _, _, next in
                var changed = next
                changed.setValue("a\r\nInjected: 1", forHTTPHeaderField: "X-Hop")
                return changed
            }
            manager.hooks = hooks
            let error = await #expect(throws: LupineError.self) { try await manager.get("redirect/1") }
            #expect(Self.invalidHeaderName(error) == "X-Hop")
        }
    }

    @Test func downloadTaskFailsWithTheTypedError() async throws {
        try await withSessionManager { _, manager in
            var request = try manager.makeRequest(.GET, "bytes/10", parameters: nil, headers: nil)
            request.setValue("1", forHTTPHeaderField: "Xé")
            let error = await #expect(throws: LupineError.self) { try await manager.download(request) }
            #expect(Self.invalidHeaderName(error) == "Xé")
        }
    }

    @Test func validHeadersReachTheServerUnchanged() async throws {
        try await withSessionManager { _, manager in
            var request = try manager.makeRequest(.GET, "headers", parameters: nil, headers: nil)
            for field in Self.validFields {
                request.setValue(field.value, forHTTPHeaderField: field.name)
            }
            let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
            let echo = try #require(response.value as? [String: any Sendable])
            let headers = try #require(echo["headers"] as? [String: any Sendable])
            #expect(headers["X-Text"] as? String == "café ☕")
            #expect(headers["X-Tab"] as? String == "a\tb")
        }
    }

    /// `addValue` adds a field after those of its name (the server sees them joined), and a name
    /// beyond ASCII is stored, then refused before sending, never a trap.
    @Test func addedValuesReachTheServerAndABadNameIsRefused() async throws {
        try await withSessionManager { _, manager in
            var request = try manager.makeRequest(.GET, "headers", parameters: nil, headers: nil)
            request.setValue("1", forHTTPHeaderField: "X-List")
            request.addValue("2", forHTTPHeaderField: "x-list")
            #expect(request.headers["X-List"] == ["1", "2"])
            let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
            let echo = try #require(response.value as? [String: any Sendable])
            #expect((echo["headers"] as? [String: any Sendable])?["X-List"] as? String == "1,2")
            request.addValue("3", forHTTPHeaderField: "X-Ä")
            #expect(throws: LupineError.self) { try request.validateHeaders() }
        }
    }

    @Test func messageNamesTheHeaderWithControlCharactersEscaped() {
        let error = LupineError.invalidHeader(name: "X\r\né", reason: "the name may only contain letters, digits and !#$%&'*+-.^_`|~")
        #expect(error.description == #"Invalid header "X\r\né": the name may only contain letters, digits and !#$%&'*+-.^_`|~."#)
        var request = Request(url: URL(fileURLWithPath: "/"))
        request.setValue("secret\r\nvalue", forHTTPHeaderField: "Authorization")
        let thrown = #expect(throws: LupineError.self) { try HTTPRequestSerializer().serialize(request, parameters: nil) }
        #expect(thrown?.description.contains("secret") == false)
        #expect(thrown?.description.contains("U+000D") == true)
    }

    /// The header name of an `invalidHeader` error, else `nil`.
    static func invalidHeaderName(_ error: LupineError?) -> String? {
        guard case .invalidHeader(let name, _) = error else { return nil }
        return name
    }
}
