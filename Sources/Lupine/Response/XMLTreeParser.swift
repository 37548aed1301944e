import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Checks that bytes are a well-formed XML document and builds its ``ParsedXMLElement`` tree,
/// with Foundation's `XMLParser`. External entities are never resolved.
enum XMLTreeParser {
    /// How deeply elements may nest: libxml2's own default limit. Foundation's parser on Linux
    /// lifts that limit, and a tree nested much deeper could exhaust a thread's stack when it is
    /// walked or freed, so a deeper document is refused.
    static let maximumDepth = 256

    /// The root element of the document in `data`. A document Foundation's parser cannot be
    /// given safely (`XMLInputGuard`) is refused before it sees it.
    static func rootElement(of data: [UInt8]) throws(LupineError) -> ParsedXMLElement {
        if let refusal = XMLInputGuard.refusal(of: data) {
            throw .responseSerializationFailed(.xmlParsingFailed(reason: refusal))
        }
        let parser = XMLParser(data: Data(data))
        parser.shouldResolveExternalEntities = false
        let builder = XMLTreeBuilder()
        parser.delegate = builder
        let finished = parser.parse()
        if let failure = builder.failure {
            throw .responseSerializationFailed(.xmlParsingFailed(reason: failure))
        }
        if let error = parser.parserError {
            throw .responseSerializationFailed(.xmlParsingFailed(reason: XMLTreeBuilder.reason(error, parser: parser)))
        }
        guard finished, let root = builder.root else {
            throw .responseSerializationFailed(.xmlParsingFailed(reason: "the document has no root element"))
        }
        return root
    }
}

/// The `XMLParser` delegate that assembles the tree. Used by one parse on one thread, then dropped.
private final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    /// The root element, once it has ended.
    private(set) var root: ParsedXMLElement?
    /// Why parsing stopped, with where, if it did.
    private(set) var failure: String?
    /// The open elements, outermost first.
    private var openElements: [ParsedXMLElement] = []
    /// Character data not yet added to the innermost open element.
    private var pendingText = ""

    /// A parser error in words: its code's name and where the parser stood.
    static func reason(_ error: any Error, parser: XMLParser) -> String {
        let code = (error as NSError).code
        let name = XMLParser.ErrorCode(rawValue: code).map { String(describing: $0) } ?? "error \(code)"
        return "\(name) at line \(parser.lineNumber), column \(parser.columnNumber)"
    }

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        self.flushText()
        guard self.openElements.count < XMLTreeParser.maximumDepth else {
            self.failure = "elements nested deeper than \(XMLTreeParser.maximumDepth) at line \(parser.lineNumber)"
            parser.abortParsing()
            return
        }
        self.openElements.append(ParsedXMLElement(name: elementName, attributes: attributeDict))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        self.flushText()
        guard let element = self.openElements.popLast() else { return }
        if self.openElements.isEmpty {
            self.root = element
        } else {
            self.openElements[self.openElements.count - 1].children.append(.element(element))
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        self.pendingText += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        self.pendingText += String(decoding: block, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if self.failure == nil {
            self.failure = Self.reason(parseError, parser: parser)
        }
    }

    /// Adds the pending text to the innermost open element; text outside the root is dropped.
    private func flushText() {
        defer { self.pendingText = "" }
        guard !self.pendingText.isEmpty, !self.openElements.isEmpty else { return }
        self.openElements[self.openElements.count - 1].children.append(.text(self.pendingText))
    }
}
