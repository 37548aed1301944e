import Foundation

/// Turns the object graphs of `JSONSerialization` and `PropertyListSerialization` (dictionaries,
/// arrays, strings, `NSNumber`, `NSNull`, `Data`, `Date`) into `Sendable` Swift values.
///
/// Dictionaries become `[String: any Sendable]`, arrays `[any Sendable]`, numbers `Bool` (a
/// boolean `NSNumber`, whose `objCType` is `c`), `Double` (floating point), `Int`, or `UInt64`
/// for an unsigned integer above `Int.max`; `NSNull` becomes ``JSONNull``.
enum FoundationObjectConverter {
    /// Converts `object` and everything it contains. With `removingNulls`, null values are left
    /// out of dictionaries and arrays at every depth; a null at the top stays.
    static func sendableValue(from object: Any, removingNulls: Bool) -> any Sendable {
        switch object {
        case is NSNull:
            return JSONNull()
        case let string as String:
            return string
        case let data as Data:
            return data
        case let date as Date:
            return date
        case let dictionary as [String: Any]:
            var converted: [String: any Sendable] = [:]
            for (key, value) in dictionary where !(removingNulls && value is NSNull) {
                converted[key] = self.sendableValue(from: value, removingNulls: removingNulls)
            }
            return converted
        case let dictionary as [AnyHashable: Any]:
            var converted: [String: any Sendable] = [:]
            for (key, value) in dictionary where !(removingNulls && value is NSNull) {
                converted[String(describing: key.base)] = self.sendableValue(from: value, removingNulls: removingNulls)
            }
            return converted
        case let array as [Any]:
            return array.filter { !(removingNulls && $0 is NSNull) }.map { self.sendableValue(from: $0, removingNulls: removingNulls) }
        case let number as NSNumber:
            return self.sendableNumber(number)
        default:
            // Neither serialization produces other types; describe rather than drop one.
            return String(describing: object)
        }
    }

    private static func sendableNumber(_ number: NSNumber) -> any Sendable {
        switch String(cString: number.objCType) {
        case "c":
            return number.boolValue
        case "f", "d":
            return number.doubleValue
        case "C", "S", "I", "L", "Q":
            let unsigned = number.uint64Value
            return Int(exactly: unsigned).map { $0 as any Sendable } ?? unsigned
        default:
            return number.intValue
        }
    }
}
