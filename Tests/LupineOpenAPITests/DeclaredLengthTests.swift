import Foundation
import HTTPTypes
import Lupine
import LupineOpenAPI
import OpenAPIRuntime
import Testing

/// A request body whose `HTTPBody.length` is not what it produces fails the same way whether
/// the transport streams it or reads it into memory first: with the length mismatch, never sent
/// whole under a length it does not have. A request without a body keeps a caller's
/// `Content-Length: 0`, as curl sends it.
@Suite struct DeclaredLengthTests {
    @Test(arguments: [IterationBehavior.single, .multiple], [(declared: 10, produced: 5), (declared: 2, produced: 5)])
    func aBodyOfAnotherLengthThanItDeclaresFails(iterationBehavior: IterationBehavior, lengths: (declared: Int, produced: Int)) async throws {
        try await withClient { server, manager, _ in
            let transport = LupineClientTransport(manager: manager)
            let body = HTTPBody(
                DeterministicBody.Chunks(length: 5, chunkSize: 5),
                length: .known(Int64(lengths.declared)),
                iterationBehavior: iterationBehavior
            )
            let request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/anything")
            let error = await #expect(throws: LupineError.self) {
                try await transport.send(request, body: body, baseURL: server.baseURL, operationID: "post")
            }
            guard case .transport(.requestBodyLengthMismatch(let declared, let produced))? = error else {
                Issue.record("expected a length mismatch, got \(String(describing: error))")
                return
            }
            #expect(declared == lengths.declared)
            #expect(produced == lengths.produced)
        }
    }

    @Test(arguments: [HTTPRequest.Method.get, .delete])
    func aCallersEmptyContentLengthOnARequestWithoutABodyIsSent(method: HTTPRequest.Method) async throws {
        try await withClient { server, manager, _ in
            let transport = LupineClientTransport(manager: manager)
            var request = HTTPRequest(method: method, scheme: nil, authority: nil, path: "/anything")
            request.headerFields[.contentLength] = "0"
            let (response, body) = try await transport.send(request, body: nil, baseURL: server.baseURL, operationID: "echo")
            #expect(response.status == .ok)
            let data = try await Data(collecting: try #require(body), upTo: 1 << 20)
            let echo = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let headers = try #require(echo?["headers"] as? [String: Any])
            #expect(headers["Content-Length"] as? String == "0")
        }
    }
}
