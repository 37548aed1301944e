#if canImport(FoundationXML) || os(macOS)
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Validates a response and reads its body with Foundation's `XMLDocument`, the counterpart of
/// AFNetworking's `AFXMLDocumentResponseSerializer`; the value is a ``ParsedXMLDocument``, since
/// `XMLDocument` is not `Sendable`.
///
/// The body is first checked to be well formed with `XMLParser`: `XMLDocument` silently repairs
/// some malformed documents (and on Linux traps on a body that is not XML at all), so a malformed
/// document fails with ``LupineError/ResponseSerializationFailureReason/xmlParsingFailed(reason:)``
/// whatever ``options`` say. An empty body is no value and no error. Documents that Foundation on
/// Linux would crash on are refused as ``XMLParserResponseSerializer`` refuses them.
public struct XMLDocumentResponseSerializer: ResponseSerializer {
    /// The status codes that pass validation (default 200..<300).
    public var acceptableStatusCodes: IndexSet
    /// The MIME types that pass validation: `application/xml` and `text/xml` by default.
    public var acceptableContentTypes: Set<String>?
    /// The options `XMLDocument` reads with; by default `.nodeLoadExternalEntitiesNever`, so a
    /// response cannot make the client read local files or other URLs.
    public var options: XMLNode.Options

    /// Creates a serializer.
    public init(
        options: XMLNode.Options = [.nodeLoadExternalEntitiesNever],
        acceptableStatusCodes: IndexSet = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = ["application/xml", "text/xml"]
    ) {
        self.options = options
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Validates the response and reads its body as an XML document.
    public func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<ParsedXMLDocument> {
        self.validateThenParse(head: head, data: data) { () throws(LupineError) -> ParsedXMLDocument? in
            guard !data.isEmpty else { return nil }
            let rootElement = try XMLTreeParser.rootElement(of: data)
            let document: XMLDocument
            do {
                document = try XMLDocument(data: Data(data), options: self.options)
            } catch {
                throw .responseSerializationFailed(.xmlParsingFailed(reason: error.debugReason))
            }
            return ParsedXMLDocument(
                rootElement: rootElement,
                xmlString: document.xmlString,
                version: document.version,
                isStandalone: document.isStandalone
            )
        }
    }
}
#endif
