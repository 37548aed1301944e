import Foundation
import Lupine
import Testing

/// When both the status code and the content type are unacceptable, the status error is
/// reported with the content-type failure underneath, as AFNetworking does, so a `catch` on the
/// status sees HTML error pages too.
@Suite struct ValidationOrderTests {
    @Test func htmlErrorPageToTheJSONSerializerIsAStatusError() throws {
        let page = ResponseFixture.bytes("<html><body><h1>500 Internal Server Error</h1></body></html>")
        let result = JSONResponseSerializer().serialize(
            head: try ResponseFixture.head(.internalServerError, contentType: "text/html; charset=utf-8"),
            data: page,
            request: nil
        )
        #expect(result.value == nil)
        guard case .responseValidationFailed(.unacceptableStatusCode(let code, _, let body, let underlying)) = result.error else {
            Issue.record("expected unacceptableStatusCode, got \(String(describing: result.error))")
            return
        }
        #expect(code == 500)
        #expect(body == page)
        #expect(underlying?.unacceptableContentType?.contentType == "text/html")
        #expect(underlying?.unacceptableContentType?.acceptable == ["application/json", "text/javascript", "text/json"])
    }

    @Test func statusAloneHasNothingUnderneathAndStillParses() throws {
        let result = JSONResponseSerializer().serialize(
            head: try ResponseFixture.head(.notFound, contentType: "application/json"),
            data: ResponseFixture.bytes(#"{"error":"missing"}"#),
            request: nil
        )
        guard case .responseValidationFailed(.unacceptableStatusCode(404, _, _, let underlying)) = result.error else {
            Issue.record("expected unacceptableStatusCode, got \(String(describing: result.error))")
            return
        }
        #expect(underlying == nil)
        #expect((result.value as? [String: any Sendable])?["error"] as? String == "missing")
    }

    @Test func contentTypeAloneIsStillAContentTypeError() throws {
        let result = JSONResponseSerializer().serialize(
            head: try ResponseFixture.head(.ok, contentType: "text/html"),
            data: ResponseFixture.bytes("<p>"),
            request: nil
        )
        #expect(result.error?.unacceptableContentType?.contentType == "text/html")
        #expect(result.value == nil)
    }

    @Test func overLoopbackATextErrorPageIsCaughtAsItsStatus() async throws {
        try await withSessionManager { _, manager in
            // `/status/418` answers `text/plain` "I'm a teapot": neither status nor type is acceptable.
            let error = await #expect(throws: LupineError.self) {
                try await manager.get("status/418")
            }
            guard case .responseValidationFailed(.unacceptableStatusCode(418, _, let body, let underlying)) = error else {
                Issue.record("expected unacceptableStatusCode(418), got \(String(describing: error))")
                return
            }
            #expect(body == Array("I'm a teapot\n".utf8))
            #expect(underlying?.unacceptableContentType?.contentType == "text/plain")
        }
    }
}
