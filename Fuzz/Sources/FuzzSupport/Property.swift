import Foundation

/// Traps with `message` when `condition` is false: a property a target checks has failed, and
/// libFuzzer keeps the input as a crash. The message names the target and what broke, so the
/// crash log says more than "no crash" ever could.
public func require(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() {
        fatalError("fuzz property failed: \(message())", file: file, line: line)
    }
}

/// Whether two values Lupine's serializers make (dictionaries, arrays, strings, numbers,
/// Booleans, dates, bytes, `JSONNull`) are equal at every depth. Numbers compare by type and
/// value, so `Int(1)` and `Double(1)` differ; NaN equals NaN.
public func deepEqual(_ first: Any, _ second: Any) -> Bool {
    switch (first, second) {
    case (let a as [String: any Sendable], let b as [String: any Sendable]):
        return a.count == b.count && a.allSatisfy { key, value in b[key].map { deepEqual(value, $0) } ?? false }
    case (let a as [any Sendable], let b as [any Sendable]):
        return a.count == b.count && zip(a, b).allSatisfy { deepEqual($0, $1) }
    case (let a as String, let b as String):
        return a == b
    case (let a as Bool, let b as Bool):
        return a == b
    case (let a as Int, let b as Int):
        return a == b
    case (let a as UInt64, let b as UInt64):
        return a == b
    case (let a as Double, let b as Double):
        return a == b || (a.isNaN && b.isNaN)
    case (let a as Date, let b as Date):
        return a == b
    case (let a as Data, let b as Data):
        return a == b
    default:
        return type(of: first) == type(of: second) && String(describing: first) == String(describing: second)
    }
}

/// `bytes` as hexadecimal, for messages.
public func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}
