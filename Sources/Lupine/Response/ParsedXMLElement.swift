/// An XML element as the XML response serializers hand it over: a `Sendable` value, unlike
/// Foundation's `XMLParser` and `XMLElement`.
///
/// Names are the qualified names as written (`ns:item`); namespace declarations are ordinary
/// attributes. Comments and processing instructions are left out.
public struct ParsedXMLElement: Sendable, Hashable {
    /// The element's qualified name.
    public var name: String
    /// The attributes, by qualified name.
    public var attributes: [String: String]
    /// The child elements and text, in document order.
    public var children: [ParsedXMLNode]

    /// Creates an element.
    public init(name: String, attributes: [String: String] = [:], children: [ParsedXMLNode] = []) {
        self.name = name
        self.attributes = attributes
        self.children = children
    }

    /// The child elements, in document order, without the text between them.
    public var elements: [ParsedXMLElement] {
        self.children.compactMap { child in
            if case .element(let element) = child { return element }
            return nil
        }
    }

    /// The child elements named `name`, in document order.
    public func elements(named name: String) -> [ParsedXMLElement] {
        self.elements.filter { $0.name == name }
    }

    /// The first child element named `name`, or `nil`.
    public func firstElement(named name: String) -> ParsedXMLElement? {
        self.elements.first { $0.name == name }
    }

    /// All the character data inside the element, its descendants' included, in document order.
    public var text: String {
        self.children.map { child in
            switch child {
            case .element(let element): return element.text
            case .text(let text): return text
            }
        }.joined()
    }
}
