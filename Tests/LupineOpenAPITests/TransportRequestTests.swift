import Foundation
import HTTPTypes
import Lupine
import LupineOpenAPI
import LupineTestServer
import OpenAPIRuntime
import Testing

/// What ``LupineClientTransport`` makes of a request, seen from the server: where it goes, and
/// which bodies the session may send again.
@Suite struct TransportRequestTests {
    @Test func theRequestsPathAndQueryFollowTheBaseURLsPath() async throws {
        try await withClient { server, manager, _ in
            let transport = LupineClientTransport(manager: manager)
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/echo%20me?a=1&b=x%26y")
            for base in ["anything/api", "anything/api/"] {
                let (response, body) = try await transport.send(
                    request,
                    body: nil,
                    baseURL: server.baseURL.appending(path: base),
                    operationID: "echo"
                )
                #expect(response.status == .ok)
                let data = try await Data(collecting: try #require(body), upTo: 1 << 20)
                let echo = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                #expect(echo?["url"] as? String == server.baseURL.absoluteString + "/anything/api/echo%20me?a=1&b=x%26y")
                #expect(echo?["method"] as? String == "GET")
            }
        }
    }

    /// A serializer default whose name is beyond ASCII is refused before sending, never a NIO
    /// trap (the audit's finding).
    @Test func aSerializerDefaultWithABadNameIsRefusedNotATrap() async throws {
        try await withClient { server, manager, _ in
            manager.requestSerializer.setValue("1", forHTTPHeaderField: "X-Ä")
            let transport = LupineClientTransport(manager: manager)
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/get")
            await #expect(throws: (any Error).self) {
                _ = try await transport.send(request, body: nil, baseURL: server.baseURL, operationID: "get")
            }
        }
    }

    @Test func aPathThatStartsWithTwoSlashesStaysAPath() async throws {
        // A path parameter left empty at the start of a template (`/{owner}/repos`) makes such a
        // path; read as a URL reference, `//evil.example/x` would name a host, and its path
        // would lose a segment.
        try await withClient { server, manager, _ in
            let transport = LupineClientTransport(manager: manager)
            for path in ["//repos", "//evil.example/x?a=1"] {
                let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)
                let (response, body) = try await transport.send(
                    request,
                    body: nil,
                    baseURL: server.baseURL.appending(path: "anything/api"),
                    operationID: "echo"
                )
                #expect(response.status == .ok)
                let data = try await Data(collecting: try #require(body), upTo: 1 << 20)
                let echo = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                #expect(echo?["url"] as? String == server.baseURL.absoluteString + "/anything/api" + path)
            }
        }
    }

    @Test func aSmallBodyThatCanBeReadAgainIsSentAgainOnARetry() async throws {
        try await withClient(configuring: { $0.interceptor = RetryPolicy(exponentialBackoffScale: .zero) }) { server, manager, _ in
            let transport = LupineClientTransport(manager: manager)
            let request = HTTPRequest(method: .put, scheme: nil, authority: nil, path: "/retry/replayable/fail/1")
            let (response, _) = try await transport.send(request, body: HTTPBody("{}"), baseURL: server.baseURL, operationID: "put")
            #expect(response.status == .ok)
            #expect(server.attempts(forKey: "replayable") == 2)
        }
    }

    @Test func aStreamedBodyIsNeverSentTwice() async throws {
        try await withClient(configuring: { $0.interceptor = RetryPolicy(exponentialBackoffScale: .zero) }) { server, manager, _ in
            // A body that can be read only once streams; so does one that could be read again
            // when the transport buffers none.
            let cases = [
                ("once", LupineClientTransport(manager: manager), DeterministicBody.upload(length: 1000)),
                (
                    "unbuffered", LupineClientTransport(manager: manager, maximumBufferedRequestBodyLength: 0),
                    DeterministicBody.upload(length: 1000, iterationBehavior: .multiple)
                ),
            ]
            for (key, transport, body) in cases {
                let request = HTTPRequest(method: .put, scheme: nil, authority: nil, path: "/retry/\(key)/fail/1")
                let (response, _) = try await transport.send(request, body: body, baseURL: server.baseURL, operationID: "put")
                #expect(response.status == .serviceUnavailable)
                #expect(server.attempts(forKey: key) == 1)
            }
        }
    }
}
