import Foundation
import Testing

@testable import Lupine

/// `XMLParserResponseSerializer` and `XMLDocumentResponseSerializer`: the element tree, strict
/// well-formedness, and external entities left unresolved.
@Suite struct ResponseSerializationXMLTests {
    private let document = """
        <?xml version="1.0" encoding="UTF-8"?>
        <feed version="2"><title>Tom &amp; Jerry</title><entry id="1"><![CDATA[<raw>]]></entry><entry id="2"/></feed>
        """

    private func head(contentType: String = "application/xml") throws -> ResponseHead {
        try ResponseFixture.head(contentType: contentType)
    }

    @Test func parserBuildsTheElementTree() throws {
        let result = XMLParserResponseSerializer().serialize(head: try self.head(), data: ResponseFixture.bytes(self.document), request: nil)
        #expect(result.error == nil)
        let feed = try #require(result.value)
        #expect(feed.name == "feed")
        #expect(feed.attributes == ["version": "2"])
        #expect(feed.firstElement(named: "title")?.text == "Tom & Jerry")
        #expect(feed.firstElement(named: "title")?.children == [.text("Tom & Jerry")])
        let entries = feed.elements(named: "entry")
        #expect(entries.map { $0.attributes["id"] } == ["1", "2"])
        #expect(entries.first?.text == "<raw>")
        #expect(entries.last?.children.isEmpty == true)
        #expect(feed.text == "Tom & Jerry<raw>")
    }

    @Test(arguments: ["<a><b></a>", "not xml", "<a/><b/>", "   "])
    func parserRejectsMalformedDocuments(body: String) throws {
        let result = XMLParserResponseSerializer().serialize(head: try self.head(contentType: "text/xml"), data: ResponseFixture.bytes(body), request: nil)
        #expect(result.value == nil)
        #expect(result.error?.serializationFailure == .xml)
    }

    @Test func parserReportsWhere() throws {
        let result = XMLParserResponseSerializer().serialize(head: try self.head(), data: ResponseFixture.bytes("<a>\n<b></a>"), request: nil)
        #expect(result.error?.serializationFailureReason?.contains("line 2") == true)
    }

    @Test func nestingIsLimited() throws {
        func nested(_ depth: Int) -> [UInt8] {
            ResponseFixture.bytes(String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth))
        }
        let deepest = XMLParserResponseSerializer().serialize(head: try self.head(), data: nested(256), request: nil)
        #expect(deepest.error == nil)
        #expect(deepest.value?.name == "a")
        let tooDeep = XMLParserResponseSerializer().serialize(head: try self.head(), data: nested(100_000), request: nil)
        #expect(tooDeep.value == nil)
        #expect(tooDeep.error?.serializationFailureReason?.contains("deeper than 256") == true)
    }

    @Test func emptyBodyIsNoValueAndNoError() throws {
        let result = XMLParserResponseSerializer().serialize(head: try ResponseFixture.head(.noContent), data: [], request: nil)
        #expect(result.value == nil)
        #expect(result.error == nil)
    }

    @Test func bothAcceptOnlyXMLContentTypes() throws {
        #expect(XMLParserResponseSerializer().acceptableContentTypes == ["application/xml", "text/xml"])
        #expect(XMLDocumentResponseSerializer().acceptableContentTypes == ["application/xml", "text/xml"])
        let result = XMLDocumentResponseSerializer().serialize(head: try self.head(contentType: "application/json"), data: ResponseFixture.bytes("<a/>"), request: nil)
        #expect(result.value == nil)
        #expect(result.error?.unacceptableContentType?.contentType == "application/json")
    }

    @Test func documentReadsDeclarationTreeAndString() throws {
        let result = XMLDocumentResponseSerializer().serialize(head: try self.head(), data: ResponseFixture.bytes(self.document), request: nil)
        #expect(result.error == nil)
        let parsed = try #require(result.value)
        #expect(parsed.version == "1.0")
        #expect(parsed.rootElement.name == "feed")
        #expect(parsed.rootElement.elements(named: "entry").count == 2)
        #expect(parsed.xmlString.contains("<title>Tom &amp; Jerry</title>"))
        let foundation = try parsed.makeXMLDocument()
        #expect(foundation.rootElement()?.name == "feed")
        #expect(try foundation.nodes(forXPath: "/feed/entry").count == 2)
    }

    @Test(arguments: ["<a><b></a>", "not xml", "<a/><b/>"])
    func documentRejectsWhatXMLDocumentWouldRepairOrTrapOn(body: String) throws {
        let result = XMLDocumentResponseSerializer().serialize(head: try self.head(), data: ResponseFixture.bytes(body), request: nil)
        #expect(result.value == nil)
        #expect(result.error?.serializationFailure == .xml)
    }

    @Test func notFoundStillParsesTheDocument() throws {
        let result = XMLDocumentResponseSerializer().serialize(
            head: try ResponseFixture.head(.notFound, contentType: "text/xml"),
            data: ResponseFixture.bytes("<error>missing</error>"),
            request: nil
        )
        #expect(result.value?.rootElement.text == "missing")
        #expect(result.error?.unacceptableStatus?.code == 404)
    }

    @Test func externalEntitiesAreNotLoaded() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("lupine-xxe-\(UUID().uuidString).txt")
        try Data("TOP-SECRET".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let body = """
            <?xml version="1.0"?><!DOCTYPE a [<!ENTITY e SYSTEM "\(secret.absoluteString)">]><a>&e;</a>
            """
        // An internal subset is refused before any parser sees it (it could also crash Foundation).
        let tree = XMLParserResponseSerializer().serialize(head: try self.head(), data: ResponseFixture.bytes(body), request: nil)
        #expect(tree.value == nil && tree.error?.description.contains("internal DTD subset") == true)
        #expect(tree.error?.description.contains("TOP-SECRET") == false)
        let document = XMLDocumentResponseSerializer().serialize(head: try self.head(), data: ResponseFixture.bytes(body), request: nil)
        #expect(document.value == nil && document.error?.description.contains("internal DTD subset") == true)
    }
}
