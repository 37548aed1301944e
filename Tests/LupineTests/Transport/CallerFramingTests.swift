import Foundation
import Lupine
import LupineTestServer
import NIOCore
import NIOHTTP1
import Testing

/// A caller's own `Content-Length` and `Transfer-Encoding` give way to the body's framing, so a
/// request never carries two; one that agrees with a request without a body stays, as curl sends
/// it (some servers answer a bodiless `DELETE` or `POST` without it with 411).
@Suite struct CallerFramingTests {
    @Test(arguments: [HTTPMethod.GET, .DELETE, .OPTIONS], ["Content-Length", "content-length"])
    func aBodilessRequestKeepsACallersEmptyContentLength(method: HTTPMethod, name: String) async throws {
        try await withServerAndTransport { server, transport in
            let request = TransportRequest(
                method: method,
                url: server.baseURL.appending("/anything"),
                headers: [name: "0"],
                cancellation: TransportCancellation()
            )
            let sent = try await Self.headersReceived(for: request, by: transport)
            #expect(sent["Content-Length"] as? String == "0")
            #expect(sent["Transfer-Encoding"] == nil)
        }
    }

    @Test func aCallersEmptyContentLengthBesideChunkedLeavesOnlyTheLength() async throws {
        try await withServerAndTransport { server, transport in
            let request = TransportRequest(
                url: server.baseURL.appending("/anything"),
                headers: ["Transfer-Encoding": "chunked", "Content-Length": "0"],
                cancellation: TransportCancellation()
            )
            let sent = try await Self.headersReceived(for: request, by: transport)
            #expect(sent["Content-Length"] as? String == "0")
            #expect(sent["Transfer-Encoding"] == nil)
        }
    }

    @Test func aBodilessRequestDropsAFramingThatPromisesABody() async throws {
        try await withServerAndTransport { server, transport in
            for headers: HTTPHeaders in [["Content-Length": "5"], ["Transfer-Encoding": "chunked"], ["Content-Length": "0", "content-length": "5"]] {
                let request = TransportRequest(
                    url: server.baseURL.appending("/anything"),
                    headers: headers,
                    cancellation: TransportCancellation()
                )
                let sent = try await Self.headersReceived(for: request, by: transport)
                #expect(sent["Content-Length"] == nil, "\(headers)")
                #expect(sent["Transfer-Encoding"] == nil, "\(headers)")
            }
        }
    }

    /// The header fields the server's echo says it received for `request`.
    private static func headersReceived(for request: TransportRequest, by transport: NIOTransport) async throws -> [String: Any] {
        let (response, body) = try await transport.fetch(request)
        #expect(response.status == .ok)
        let json = try #require(body.jsonObject)
        return try #require(json["headers"] as? [String: Any])
    }
}
