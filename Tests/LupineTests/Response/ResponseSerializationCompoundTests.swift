import Foundation
import Testing

@testable import Lupine

/// `CompoundResponseSerializer`: the first serializer without an error wins, else the last result.
@Suite struct ResponseSerializationCompoundTests {
    private let compound = CompoundResponseSerializer([
        JSONResponseSerializer(),
        XMLParserResponseSerializer(),
        PropertyListResponseSerializer(),
    ])

    private func serialize(
        _ body: String,
        contentType: String,
        status: HTTPResponseStatus = .ok,
        with serializer: CompoundResponseSerializer? = nil
    ) throws -> SerializedResponse<any Sendable> {
        (serializer ?? self.compound).serialize(
            head: try ResponseFixture.head(status, contentType: contentType),
            data: ResponseFixture.bytes(body),
            request: nil
        )
    }

    @Test func firstAcceptableSerializerWins() throws {
        let json = try self.serialize(#"{"a":1}"#, contentType: "application/json")
        #expect(json.error == nil)
        #expect((json.value as? [String: any Sendable])?["a"] as? Int == 1)

        let xml = try self.serialize("<a>1</a>", contentType: "text/xml")
        #expect(xml.error == nil)
        #expect((xml.value as? ParsedXMLElement)?.name == "a")
    }

    @Test func earlierSerializerWinsWhenSeveralAccept() throws {
        let serializer = CompoundResponseSerializer([StringResponseSerializer(), HTTPResponseSerializer()])
        let result = try self.serialize("plain", contentType: "text/plain", with: serializer)
        #expect(result.value as? String == "plain")
    }

    @Test func whenNoneAcceptsTheLastResultIsReturned() throws {
        let result = try self.serialize("<p>", contentType: "text/html")
        #expect(result.value == nil)
        #expect(result.error?.unacceptableContentType?.acceptable == ["application/x-plist"])
    }

    @Test func statusFailureKeepsTheLastValueAndError() throws {
        let result = try self.serialize(#"{"a":1}"#, contentType: "application/json", status: .notFound)
        // The last (property-list) serializer rejects both: the status, with the type underneath.
        #expect(result.error?.unacceptableStatus?.code == 404)
        guard case .responseValidationFailed(.unacceptableStatusCode(_, _, _, let underlying)) = result.error else {
            Issue.record("expected unacceptableStatusCode, got \(String(describing: result.error))")
            return
        }
        #expect(underlying?.unacceptableContentType?.acceptable == ["application/x-plist"])

        let jsonOnly = CompoundResponseSerializer([XMLParserResponseSerializer(), JSONResponseSerializer()])
        let last = try self.serialize(#"{"a":1}"#, contentType: "application/json", status: .notFound, with: jsonOnly)
        #expect((last.value as? [String: any Sendable])?["a"] as? Int == 1)
        #expect(last.error?.unacceptableStatus?.code == 404)
    }

    @Test func acceptableSetsAreUnionsAndSettingThemSetsEverySerializer() {
        #expect(
            self.compound.acceptableContentTypes == [
                "application/json", "text/json", "text/javascript", "application/xml", "text/xml", "application/x-plist",
            ])
        #expect(CompoundResponseSerializer([JSONResponseSerializer(), HTTPResponseSerializer()]).acceptableContentTypes == nil)

        var serializer = self.compound
        serializer.acceptableStatusCodes = IndexSet([200, 404])
        serializer.acceptableContentTypes = ["text/plain"]
        #expect(serializer.acceptableStatusCodes == IndexSet([200, 404]))
        for member in serializer.responseSerializers {
            #expect(member.acceptableStatusCodes == IndexSet([200, 404]))
            #expect(member.acceptableContentTypes == ["text/plain"])
        }
    }

    @Test func emptyCompoundAcceptsNothing() throws {
        let result = try self.serialize("x", contentType: "text/plain", with: CompoundResponseSerializer([]))
        #expect(result.value == nil)
        #expect(result.error != nil)
    }
}
