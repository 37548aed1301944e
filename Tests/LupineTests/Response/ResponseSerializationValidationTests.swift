import Foundation
import Testing

@testable import Lupine

/// The validation rule every serializer shares: a status failure alone still parses; an
/// unacceptable content type stops parsing (see ``ValidationOrderTests`` when both fail).
@Suite struct ResponseSerializationValidationTests {
    @Test func defaultsAccept2xxAndAnyContentType() {
        let serializer = HTTPResponseSerializer()
        #expect(serializer.acceptableStatusCodes == IndexSet(integersIn: 200..<300))
        #expect(serializer.acceptableContentTypes == nil)
    }

    @Test(arguments: [200, 201, 204, 299])
    func acceptableStatusPassesWithBytes(code: Int) throws {
        let body = ResponseFixture.bytes("payload")
        let result = HTTPResponseSerializer().serialize(
            head: try ResponseFixture.head(HTTPResponseStatus(statusCode: code), contentType: "text/plain"),
            data: body,
            request: nil
        )
        #expect(result.error == nil)
        #expect(result.value == body)
    }

    @Test(arguments: [100, 199, 300, 404, 500])
    func unacceptableStatusFailsButKeepsBytes(code: Int) throws {
        let body = ResponseFixture.bytes("payload")
        let result = HTTPResponseSerializer().serialize(
            head: try ResponseFixture.head(HTTPResponseStatus(statusCode: code)),
            data: body,
            request: nil
        )
        #expect(result.error?.unacceptableStatus?.code == code)
        #expect(result.error?.unacceptableStatus?.body == body)
        #expect(result.value == body)
    }

    /// AFNetworking sets the content-type error only for a body that is not empty, and its JSON
    /// serializer then gives no object and no error (issue 30: Lupine reported the type).
    @Test func anEmptyBodyOfAnUnacceptableTypeIsNoError() throws {
        for contentType in ["text/html", nil] {
            let result = JSONResponseSerializer().serialize(head: try ResponseFixture.head(.ok, contentType: contentType), data: [], request: nil)
            #expect(result.error == nil, "\(String(describing: contentType))")
            #expect(result.value == nil)
        }
        let notEmpty = JSONResponseSerializer().serialize(head: try ResponseFixture.head(.ok, contentType: "text/html"), data: ResponseFixture.bytes("<p>"), request: nil)
        #expect(notEmpty.error != nil)
        // The status still counts.
        let failed = JSONResponseSerializer().serialize(head: try ResponseFixture.head(.notFound, contentType: "text/html"), data: [], request: nil)
        #expect(failed.error?.unacceptableStatus?.code == 404)
    }

    @Test func customStatusCodesReplaceTheDefault() throws {
        let serializer = HTTPResponseSerializer(acceptableStatusCodes: IndexSet([404]))
        #expect(serializer.serialize(head: try ResponseFixture.head(.notFound), data: [], request: nil).error == nil)
        #expect(serializer.serialize(head: try ResponseFixture.head(.ok), data: [], request: nil).error?.unacceptableStatus?.code == 200)
    }

    @Test func contentTypeIsMatchedWithoutParametersOrCase() throws {
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["application/json"])
        let head = try ResponseFixture.head(contentType: "Application/JSON; charset=utf-8")
        #expect(serializer.serialize(head: head, data: ResponseFixture.bytes("{}"), request: nil).error == nil)
    }

    @Test func unacceptableContentTypeReturnsNoValue() throws {
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["application/json"])
        let result = serializer.serialize(head: try ResponseFixture.head(contentType: "text/html"), data: ResponseFixture.bytes("<p>"), request: nil)
        #expect(result.value == nil)
        #expect(result.error?.unacceptableContentType?.contentType == "text/html")
        #expect(result.error?.unacceptableContentType?.acceptable == ["application/json"])
    }

    @Test func noMIMETypeAndEmptyBodyPasses() throws {
        let result = JSONResponseSerializer().serialize(head: try ResponseFixture.head(.noContent), data: [], request: nil)
        #expect(result.error == nil)
        #expect(result.value == nil)
    }

    @Test func noMIMETypeAndNonEmptyBodyFailsWhenTypesAreGiven() throws {
        let result = JSONResponseSerializer().serialize(head: try ResponseFixture.head(), data: ResponseFixture.bytes("{}"), request: nil)
        #expect(result.value == nil)
        #expect(result.error?.unacceptableContentType != nil)
        #expect(result.error?.unacceptableContentType?.contentType == nil)
    }

    @Test func noMIMETypeAndNonEmptyBodyPassesWhenAnyTypeIsAccepted() throws {
        let result = HTTPResponseSerializer().serialize(head: try ResponseFixture.head(), data: [1, 2], request: nil)
        #expect(result.error == nil)
        #expect(result.value == [1, 2])
    }

    @Test func withoutAHeadNothingIsValidated() {
        let result = JSONResponseSerializer().serialize(head: nil, data: ResponseFixture.bytes("[1]"), request: nil)
        #expect(result.error == nil)
        #expect((result.value as? [any Sendable])?.first as? Int == 1)
    }
}
