import Foundation
import FuzzSupport
import NIOHTTP1

@testable import Lupine

/// Fuzzes the XML tree parser behind `XMLParserResponseSerializer` and
/// `XMLDocumentResponseSerializer` (Foundation's `XMLParser` and `XMLDocument`, after
/// `XMLInputGuard` has refused what crashes them on Linux) on arbitrary bytes.
///
/// Properties:
/// - whatever the bytes, neither serializer traps (the guard's promise);
/// - the two serializers agree: a document `XMLDocumentResponseSerializer` reads has the root
///   element `XMLParserResponseSerializer` gives;
/// - round trip: a parsed tree written out again as XML (names as written, text and attribute
///   values escaped) parses back to an equal tree.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzXML_main")
public func fuzzXMLMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    let head = ResponseHead(status: .ok, headers: ["Content-Type": "application/xml"], url: URL(string: "https://example.com/feed.xml")!)

    let tree = XMLParserResponseSerializer().serialize(head: head, data: body, request: nil)
    let document = XMLDocumentResponseSerializer().serialize(head: head, data: body, request: nil)

    if let parsed = document.value {
        require(tree.value == parsed.rootElement, "XMLDocumentResponseSerializer's root differs from XMLParserResponseSerializer's")
    }
    if let root = tree.value {
        let written = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" + XMLWriter.write(root)
        let again = XMLParserResponseSerializer().serialize(head: head, data: Array(written.utf8), request: nil)
        if let error = again.error {
            require(false, "a parsed tree written out again does not parse (\(error)): \(written.prefix(300))")
        }
        require(again.value == root, "XML round trip changed the tree: \(written.prefix(300))")
    }
    return 0
}

/// Writes a ``ParsedXMLElement`` tree as XML text.
enum XMLWriter {
    static func write(_ element: ParsedXMLElement) -> String {
        var text = "<" + element.name
        for (name, value) in element.attributes.sorted(by: { $0.key < $1.key }) {
            text += " \(name)=\"\(escaped(value, inAttribute: true))\""
        }
        text += ">"
        for child in element.children {
            switch child {
            case .element(let inner): text += write(inner)
            case .text(let characters): text += escaped(characters, inAttribute: false)
            }
        }
        return text + "</" + element.name + ">"
    }

    static func escaped(_ text: String, inAttribute: Bool) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where inAttribute: result += "&quot;"
            case "\r": result += "&#xD;"
            case "\n" where inAttribute: result += "&#xA;"
            case "\t" where inAttribute: result += "&#x9;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
