import NIOConcurrencyHelpers
import Foundation
import HTTPTypes
import Lupine
import LupineOpenAPI
import OpenAPIRuntime
import Testing

/// Header fields cross between HTTP's types and Lupine's as they are: in order, a name given
/// several times as several fields, both ways; a value Lupine will not send is a typed error.
@Suite struct HeaderMappingTests {
    @Test func repeatedRequestFieldsAllReachTheServer() async throws {
        let multi = try #require(HTTPField.Name("X-Multi"))
        try await withClient { server, manager, _ in
            let client = Client(
                serverURL: server.baseURL,
                transport: LupineClientTransport(manager: manager),
                middlewares: [AddingFields([HTTPField(name: multi, value: "one"), HTTPField(name: multi, value: "two")])]
            )
            let headers = try await client.getHeaders().ok.body.json.headers.additionalProperties
            // The server joins a repeated field's values with commas, as httpbin does.
            #expect(headers["X-Multi"] == "one,two")
        }
    }

    @Test func repeatedResponseFieldsReachTheClient() async throws {
        let echo = try #require(HTTPField.Name("X-Lupine-Echo"))
        try await withClient { server, manager, _ in
            let seen = ResponseFields()
            let client = Client(serverURL: server.baseURL, transport: LupineClientTransport(manager: manager), middlewares: [seen])
            _ = try await client.getResponseHeaders(query: .init(xLupineEcho: ["a", "b"])).ok
            #expect(seen.last?[values: echo] == ["a", "b"])
            let single = try await client.getResponseHeaders(query: .init(xLupineEcho: ["only"])).ok
            #expect(single.headers.xLupineEcho == "only")
            #expect(seen.last?[.contentType] == "application/json")
        }
    }

    @Test func aValueBeyondASCIIIsATypedErrorAndNothingIsSent() async throws {
        let multi = try #require(HTTPField.Name("X-Multi"))
        try await withClient { server, manager, _ in
            let client = Client(
                serverURL: server.baseURL,
                transport: LupineClientTransport(manager: manager),
                middlewares: [AddingFields([HTTPField(name: multi, value: "café")])]
            )
            let error = try await #require(throws: ClientError.self) { try await client.getHeaders() }
            guard case .invalidHeader(let name, let reason)? = error.underlyingError as? LupineError else {
                Issue.record("expected an invalid header, got \(error.underlyingError)")
                return
            }
            #expect(name == "X-Multi")
            #expect(reason.contains("ASCII"))
            #expect(server.connections.accepted == 0)
        }
    }
}

/// A middleware that appends `fields` to every request.
struct AddingFields: ClientMiddleware {
    let fields: [HTTPField]

    init(_ fields: [HTTPField]) {
        self.fields = fields
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields.append(contentsOf: self.fields)
        return try await next(request, body, baseURL)
    }
}

/// A middleware that keeps the header fields of the last response.
final class ResponseFields: ClientMiddleware {
    private let fields = NIOLockedValueBox<HTTPFields?>(nil)

    var last: HTTPFields? {
        self.fields.withLockedValue { $0 }
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        self.fields.withLockedValue { $0 = response.headerFields }
        return (response, responseBody)
    }
}
