import Foundation

/// Validates a response and parses its body as XML into a ``ParsedXMLElement`` tree, the
/// counterpart of AFNetworking's `AFXMLParserResponseSerializer`.
///
/// AFNetworking hands over an unstarted `NSXMLParser`; that class is not `Sendable`, so Lupine
/// runs Foundation's `XMLParser` itself and hands over the document's root element. A malformed
/// document fails with ``LupineError/ResponseSerializationFailureReason/xmlParsingFailed(reason:)``;
/// to drive a parser of your own, make one from the response's `data`. An empty body is no value
/// and no error. External entities are never resolved.
///
/// Foundation's parser on Linux crashes the process on some documents a server can send, so they
/// fail with the same error before it sees them: bytes that are not UTF-8 (or a NUL byte), an
/// encoding other than UTF-8 declared, an internal DTD subset (`<!DOCTYPE r [ … ]>`; a
/// `<!DOCTYPE>` naming an external DTD is read) and a processing instruction without data
/// (`<?pi?>`).
public struct XMLParserResponseSerializer: ResponseSerializer {
    /// The status codes that pass validation (default 200..<300).
    public var acceptableStatusCodes: IndexSet
    /// The MIME types that pass validation: `application/xml` and `text/xml` by default.
    public var acceptableContentTypes: Set<String>?

    /// Creates a serializer.
    public init(
        acceptableStatusCodes: IndexSet = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = ["application/xml", "text/xml"]
    ) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Validates the response and parses its body into the document's root element.
    public func serialize(head: ResponseHead?, data: [UInt8], request: Request?) -> SerializedResponse<ParsedXMLElement> {
        self.validateThenParse(head: head, data: data) { () throws(LupineError) -> ParsedXMLElement? in
            guard !data.isEmpty else { return nil }
            return try XMLTreeParser.rootElement(of: data)
        }
    }
}
