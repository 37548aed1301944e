/// One child of a ``ParsedXMLElement``: an element, or a run of character data (text, entities
/// and CDATA sections merged, exactly as they appear between tags, whitespace included).
public enum ParsedXMLNode: Sendable, Hashable {
    /// A child element.
    case element(ParsedXMLElement)
    /// Character data.
    case text(String)
}
