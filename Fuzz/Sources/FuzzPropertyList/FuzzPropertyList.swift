import Foundation
import FuzzSupport
import NIOHTTP1

@testable import Lupine

/// Fuzzes `PropertyListResponseSerializer` (`BinaryPropertyListGuard`, then Foundation's
/// `PropertyListSerialization` for XML, binary and OpenStep property lists) on arbitrary bytes.
///
/// Properties:
/// - whatever the bytes, nothing traps or hangs (the guard's promise: sets, non-numeric dates
///   and lists standing for more than a million objects are refused before Foundation);
/// - every value is one of the documented types: `[String: any Sendable]`, `[any Sendable]`,
///   `String`, `Int`, `UInt64`, `Double`, `Bool`, `Date`, `Data`;
/// - the guard is pure: the same bytes get the same verdict twice.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzPropertyList_main")
public func fuzzPropertyListMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    let head = ResponseHead(status: .ok, headers: ["Content-Type": "application/x-plist"], url: URL(string: "https://example.com/list.plist")!)

    let refusal = BinaryPropertyListGuard.refusal(of: body)
    require(BinaryPropertyListGuard.refusal(of: body) == refusal, "BinaryPropertyListGuard gave two verdicts for one input")

    let result = PropertyListResponseSerializer().serialize(head: head, data: body, request: nil)
    if refusal != nil {
        require(result.value == nil && result.error != nil, "a property list the guard refuses was parsed anyway")
    }
    if let value = result.value {
        checkTypes(value, of: "property-list") { $0 is String || $0 is Int || $0 is UInt64 || $0 is Double || $0 is Bool || $0 is Date || $0 is Data }
    }
    return 0
}

