#if canImport(FoundationXML) || os(macOS)
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML document as ``XMLDocumentResponseSerializer`` hands it over: a `Sendable` value, unlike
/// Foundation's `XMLDocument`, holding what `XMLDocument` made of the body and its element tree.
public struct ParsedXMLDocument: Sendable, Hashable {
    /// The root element.
    public var rootElement: ParsedXMLElement
    /// The document as `XMLDocument` writes it out, declaration (always naming UTF-8, which
    /// the string is in), document type and content.
    public var xmlString: String
    /// The XML version: the declaration's, or `1.0` when there is none.
    public var version: String?
    /// Whether the declaration says `standalone="yes"`.
    public var isStandalone: Bool

    /// Creates a document value.
    public init(
        rootElement: ParsedXMLElement,
        xmlString: String,
        version: String? = nil,
        isStandalone: Bool = false
    ) {
        self.rootElement = rootElement
        self.xmlString = xmlString
        self.version = version
        self.isStandalone = isStandalone
    }

    /// A new Foundation `XMLDocument` of ``xmlString``, for XPath and the rest of its API,
    /// never loading external entities.
    public func makeXMLDocument() throws -> XMLDocument {
        try XMLDocument(xmlString: self.xmlString, options: [.nodeLoadExternalEntitiesNever])
    }
}
#endif
