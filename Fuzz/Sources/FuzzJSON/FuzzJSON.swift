import Foundation
import FuzzSupport
import NIOHTTP1

@testable import Lupine

/// Fuzzes `JSONResponseSerializer` (Lupine's own strict UTF-8 parser, and `JSONSerialization` for
/// UTF-16 and UTF-32 bodies) and `DecodableResponseSerializer` on arbitrary bytes.
///
/// Properties:
/// - every value is one of the documented types: `[String: any Sendable]`, `[any Sendable]`,
///   `String`, `Int`, `UInt64`, `Double`, `Bool`, `JSONNull`;
/// - with `removesKeysWithNullValues`, no `JSONNull` is left below the top level;
/// - without `.fragmentsAllowed`, a UTF-8 document's top level is an object or an array;
/// - round trip: a value the UTF-8 parser accepts, written out again as JSON, parses back to an
///   equal value (same types, same numbers, same strings).
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzJSON_main")
public func fuzzJSONMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    let head = ResponseHead(
        status: .ok,
        headers: ["Content-Type": "application/json; charset=utf-8"],
        url: URL(string: "https://example.com/fuzz.json")!
    )

    let strict = JSONResponseSerializer()
    let lenient = JSONResponseSerializer(readingOptions: .fragmentsAllowed, removesKeysWithNullValues: true)
    let strictResult = strict.serialize(head: head, data: body, request: nil)
    let lenientResult = lenient.serialize(head: head, data: body, request: nil)

    if let value = strictResult.value {
        checkTypes(value, of: "JSON") { $0 is String || $0 is Int || $0 is UInt64 || $0 is Double || $0 is Bool || $0 is JSONNull }
        let isUTF8Path = !(body.count >= 2 && (body[0] == 0 || body[1] == 0 || body[0] == 0xFE || body[0] == 0xFF)) && body.first != 0
        if isUTF8Path {
            require(value is [String: any Sendable] || value is [any Sendable], "top-level fragment accepted without .fragmentsAllowed: \(hex(body.prefix(64)))")
        }
    }
    if let value = lenientResult.value {
        checkTypes(value, of: "JSON") { $0 is String || $0 is Int || $0 is UInt64 || $0 is Double || $0 is Bool || $0 is JSONNull }
        checkNoNulls(value, path: "$", isTop: true)
    }
    // Fragments allowed only widens what is accepted.
    if strictResult.value != nil {
        require(lenientResult.value != nil || lenientResult.error == nil, "a document accepted without fragments is refused with them")
    }

    // The round trip, on the UTF-8 parser only (its values are exactly JSON's).
    if let value = try? JSONValueParser.parse(body, allowingFragments: true, removingNulls: false),
        let text = JSONWriter.write(value)
    {
        do {
            let again = try JSONValueParser.parse(Array(text.utf8), allowingFragments: true, removingNulls: false)
            require(deepEqual(value, again), "JSON round trip changed the value: \(text.prefix(200))")
        } catch {
            require(false, "JSON written from a parsed value does not parse: \(error.reason) in \(text.prefix(200))")
        }
    }

    // The decoding serializer (JSONDecoder) into a JSON-shaped Decodable.
    _ = DecodableResponseSerializer(JSONShape.self).serialize(head: head, data: body, request: nil)
    return 0
}


private func checkNoNulls(_ value: any Sendable, path: String, isTop: Bool) {
    switch value {
    case let object as [String: any Sendable]:
        for (key, member) in object { checkNoNulls(member, path: path + "." + key, isTop: false) }
    case let array as [any Sendable]:
        for (index, element) in array.enumerated() { checkNoNulls(element, path: path + "[\(index)]", isTop: false) }
    case is JSONNull:
        require(isTop, "null left at \(path) with removesKeysWithNullValues")
    default:
        break
    }
}

/// Writes the values the parser makes back as JSON text; `nil` for a non-finite number, which
/// JSON cannot carry.
enum JSONWriter {
    static func write(_ value: any Sendable) -> String? {
        switch value {
        case let object as [String: any Sendable]:
            var members: [String] = []
            for (key, member) in object {
                guard let text = write(member) else { return nil }
                members.append(quoted(key) + ":" + text)
            }
            return "{" + members.joined(separator: ",") + "}"
        case let array as [any Sendable]:
            var elements: [String] = []
            for element in array {
                guard let text = write(element) else { return nil }
                elements.append(text)
            }
            return "[" + elements.joined(separator: ",") + "]"
        case let string as String:
            return quoted(string)
        case let flag as Bool:
            return flag ? "true" : "false"
        case let number as Int:
            return String(number)
        case let number as UInt64:
            return String(number)
        case let number as Double:
            guard number.isFinite else { return nil }
            let text = "\(number)"
            return text
        case is JSONNull:
            return "null"
        default:
            return nil
        }
    }

    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20:
                let code = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - code.count) + code
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// Any JSON value, decoded with `JSONDecoder`.
enum JSONShape: Decodable, Sendable {
    case object([String: JSONShape])
    case array([JSONShape])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONShape].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONShape].self))
        }
    }
}
