import Foundation
import FuzzSupport

import Lupine

/// Fuzzes `queryString(from:)` and `percentEscaped(_:)` with parameters built from the input:
/// strings, integers, doubles, Booleans, nulls, sets, arrays and dictionaries nested up to
/// three levels.
///
/// Properties (only what the documentation of `queryString(from:)` promises):
/// - `percentEscaped` leaves only `A-Z a-z 0-9 - . _ ~ ? /` and upper-case `%XX` escapes, and
///   percent-decoding its output gives the input back;
/// - the query string's `&`-separated pairs, percent-decoded, are exactly the flattened
///   parameters in the documented order: keys sorted at every level, `key[subkey]` for a
///   dictionary, `key[]` per array element in order, `key` per set element sorted by text, a
///   bare `key` for a null, `1`/`0` for a Boolean and the text of a number;
/// - `URLComponents` reads the same names and values back from it.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzQueryString_main")
public func fuzzQueryStringMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)

    // percent-escaping of one arbitrary string.
    let text = input.string(maximum: 128)
    let escaped = percentEscaped(text)
    checkEscaped(escaped, of: text)

    let parameters = dictionary(&input, depth: 0)
    let query: String
    do {
        query = try queryString(from: parameters)
    } catch {
        require(false, "queryString refused supported values: \(error)")
        return 0
    }
    let expected = flattened(parameters, field: nil)
    // An empty query is no pair or one bare empty field (`["": nil]`), which reads the same.
    let components = query.isEmpty && expected.count != 1 ? [] : query.split(separator: "&", omittingEmptySubsequences: false)
    require(components.count == expected.count, "query has \(components.count) pairs, expected \(expected.count): \(query.prefix(300))")
    for (component, pair) in zip(components, expected) {
        let parts = component.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        checkEscaped(String(parts[0]), of: pair.field)
        if let value = pair.value {
            require(parts.count == 2, "pair \(component) lost its value \(value.debugDescription)")
            checkEscaped(String(parts[1]), of: value)
        } else {
            require(parts.count == 1, "null \(pair.field.debugDescription) became \(component)")
        }
    }
    // URLComponents reads the same items (empty fields excepted: an empty pair is ambiguous there).
    if !query.isEmpty, expected.allSatisfy({ !$0.field.isEmpty }) {
        var reader = URLComponents()
        reader.percentEncodedQuery = query
        let items = reader.queryItems ?? []
        require(items.count == expected.count, "URLComponents read \(items.count) items, expected \(expected.count): \(query.prefix(300))")
        for (item, pair) in zip(items, expected) {
            require(item.name == pair.field && item.value == pair.value, "URLComponents read \(item) for \(pair)")
        }
    }
    return 0
}

private func checkEscaped(_ escaped: String, of original: String) {
    let bytes = Array(escaped.utf8)
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "%") {
            let isHex = { (b: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(b) }
            require(index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2]), "bad escape in \(escaped.debugDescription)")
            index += 3
            continue
        }
        let allowed = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~?/".utf8)
        require(allowed.contains(byte), "percentEscaped left \(String(UnicodeScalar(byte))) in \(escaped.debugDescription)")
        index += 1
    }
    require(escaped.removingPercentEncoding == original, "percent-decoding \(escaped.debugDescription) does not give \(original.debugDescription)")
}

// MARK: The documented flattening, written independently of Lupine's

private struct Pair: CustomStringConvertible {
    var field: String
    var value: String?
    var description: String { "\(field.debugDescription)=\(value?.debugDescription ?? "nil")" }
}

private func flattened(_ value: any Sendable, field: String?) -> [Pair] {
    switch value {
    case let dictionary as [String: any Sendable]:
        return dictionary.keys.sorted().flatMap { key in flattened(dictionary[key]!, field: field.map { "\($0)[\(key)]" } ?? key) }
    case let set as Set<String>:
        return set.sorted().flatMap { flattened($0, field: field) }
    case let array as [any Sendable]:
        return array.flatMap { flattened($0, field: "\(field ?? "")[]") }
    case let optional as String?:
        guard let text = optional else { return [Pair(field: field ?? "", value: nil)] }
        return [Pair(field: field ?? "", value: text)]
    case let flag as Bool:
        return [Pair(field: field ?? "", value: flag ? "1" : "0")]
    case let number as Int:
        return [Pair(field: field ?? "", value: String(describing: number))]
    case let number as Double:
        return [Pair(field: field ?? "", value: String(describing: number))]
    default:
        require(false, "generator made \(type(of: value))")
        return []
    }
}

// MARK: Generating parameters

private func dictionary(_ input: inout FuzzInput, depth: Int) -> [String: any Sendable] {
    var result: [String: any Sendable] = [:]
    for _ in 0..<input.int(in: 0...(depth == 0 ? 8 : 3)) {
        result[input.string(maximum: 12)] = value(&input, depth: depth + 1)
    }
    return result
}

private func value(_ input: inout FuzzInput, depth: Int) -> any Sendable {
    switch input.int(in: 0...(depth < 3 ? 8 : 5)) {
    case 0: return input.string(maximum: 24)
    case 1: return Int(Int64(truncatingIfNeeded: UInt64(input.byte()) << 56 | UInt64(input.byte()) << 8 | UInt64(input.byte())))
    case 2: return input.bool()
    case 3: return Double(Int(input.byte()) - 128) / Double(Int(input.byte()) + 1)
    case 4: return String?.none as any Sendable
    case 5: return Set((0..<input.int(in: 0...3)).map { _ in input.string(maximum: 8) })
    case 6, 7: return (0..<input.int(in: 0...3)).map { _ in value(&input, depth: depth + 1) } as [any Sendable]
    default: return dictionary(&input, depth: depth)
    }
}
