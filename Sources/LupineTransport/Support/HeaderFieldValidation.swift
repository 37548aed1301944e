import NIOHTTP1

/// The one check of header fields before they are sent, after RFC 9110: a field name is a
/// token (§5.1); a field value holds no CR, LF, NUL or other control character but the
/// horizontal tab (§5.5). Bytes from 0x80 up (obs-text, so UTF-8 text) are allowed in values.
///
/// NIO traps on a non-ASCII name (`HTTPHeaders.add`) and its encoder refuses the rest with an
/// error that reads as the server's fault, so every place where headers enter Lupine or leave
/// for the wire asks this first.
package enum HeaderFieldValidation {
    /// The characters besides letters and digits a field name may contain.
    package static let nameSymbols = "!#$%&'*+-.^_`|~"

    /// A header field that cannot be sent, and why.
    package struct Violation: Sendable, Equatable {
        /// The field's name, as given.
        package var name: String
        /// Why it cannot be sent, a clause that reads after the name.
        package var reason: String
    }

    /// The first field of `headers` that cannot be sent, or `nil` when every one can.
    package static func firstViolation(in headers: HTTPHeaders) -> Violation? {
        for (name, value) in headers {
            if let violation = Self.violation(name: name, value: value) {
                return violation
            }
        }
        return nil
    }

    /// Why the field `name: value` cannot be sent, or `nil` when it can.
    package static func violation(name: String, value: String) -> Violation? {
        if name.isEmpty {
            return Violation(name: name, reason: "the name is empty")
        }
        if !name.utf8.allSatisfy(Self.isTokenCharacter) {
            return Violation(name: name, reason: "the name may only contain letters, digits and \(Self.nameSymbols)")
        }
        // UTF-8 bytes of characters beyond ASCII are all 0x80 or more: a byte scan finds every control.
        if let control = value.utf8.first(where: Self.isForbiddenInValue) {
            let code = String(control, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: 4 - code.count) + code
            return Violation(name: name, reason: "the value contains the control character U+\(padded), which may not appear in a header")
        }
        return nil
    }

    /// The message for an invalid field: the name quoted, with non-printable characters escaped.
    package static func message(name: String, reason: String) -> String {
        "Invalid header \(name.debugDescription): \(reason)."
    }

    /// `tchar` of RFC 9110 §5.6.2.
    package static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Self.nameSymbols.utf8.contains(byte)
        }
    }

    /// A C0 control but the tab, or DEL: CR, LF and NUL among them.
    private static func isForbiddenInValue(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }
}

extension HTTPHeaders {
    /// Replaces every field called `name` (case-insensitively) with `name: value`, or adds it.
    /// Unlike NIO's `replaceOrAdd`, which traps on a non-ASCII name, it stores any name, so an
    /// invalid one can be reported by ``HeaderFieldValidation`` when the request is built or sent.
    package mutating func replaceOrAddUnchecked(name: String, value: String) {
        self.remove(name: name)
        self.addUnchecked(name: name, value: value)
    }

    /// Adds the field `name: value` after any of that name, storing any name as
    /// ``replaceOrAddUnchecked(name:value:)`` does.
    package mutating func addUnchecked(name: String, value: String) {
        // NIO's `add(contentsOf:)` of a whole block appends without the check that traps.
        self.add(contentsOf: HTTPHeaders([(name, value)]))
    }
}
