import Foundation
import Testing

@testable import Lupine

/// Lupine's own JSON parser: RFC 8259's grammar, strictly, with the values `JSONSerialization`
/// would have produced, and an error (never a crash) for everything else.
@Suite struct JSONValueParserTests {
    private func parse(_ json: String, fragments: Bool = true, removingNulls: Bool = false) throws -> any Sendable {
        try JSONValueParser.parse(Array(json.utf8), allowingFragments: fragments, removingNulls: removingNulls)
    }

    private func reason(_ json: String, fragments: Bool = true) -> String? {
        self.reason(bytes: Array(json.utf8), fragments: fragments)
    }

    private func reason(bytes: [UInt8], fragments: Bool = true) -> String? {
        do {
            _ = try JSONValueParser.parse(bytes, allowingFragments: fragments, removingNulls: false)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func numbersBecomeIntUInt64OrDouble() throws {
        #expect(try self.parse("0") as? Int == 0)
        #expect(try self.parse("-0") as? Int == 0)
        #expect(try self.parse("-42") as? Int == -42)
        #expect(try self.parse("9223372036854775807") as? Int == Int.max)
        #expect(try self.parse("-9223372036854775808") as? Int == Int.min)
        #expect(try self.parse("9223372036854775808") as? UInt64 == 9_223_372_036_854_775_808)
        #expect(try self.parse("18446744073709551616") as? Double == 18_446_744_073_709_551_616)
        #expect(try self.parse("-9223372036854775809") as? Double == -9_223_372_036_854_775_809)
        #expect(try self.parse("1.5") as? Double == 1.5)
        #expect(try self.parse("2.0") as? Double == 2.0)
        #expect(try self.parse("1e3") as? Double == 1000)
        #expect(try self.parse("-1.25E-2") as? Double == -0.0125)
        #expect(try self.parse("1E+2") as? Double == 100)
    }

    @Test(arguments: ["01", "-", "1.", ".5", "1e", "1e+", "+1", "0x10", "1.5.2", "--1", "1e999", "NaN", "Infinity"])
    func malformedNumbersAreErrors(json: String) {
        #expect(self.reason(json) != nil)
    }

    @Test func stringsDecodeEveryEscape() throws {
        #expect(try self.parse(#""a\"b\\c\/d\be\ff\ng\rh\ti""#) as? String == "a\"b\\c/d\u{8}e\u{C}f\ng\rh\ti")
        #expect(try self.parse(#""\u00e9\u4E2D""#) as? String == "é中")
        #expect(try self.parse(#""\ud83d\ude00 after""#) as? String == "😀 after")
        #expect(try self.parse(#""raw é 😀""#) as? String == "raw é 😀")
        #expect(try self.parse(#""""#) as? String == "")
    }

    @Test(arguments: [
        #""\ud83d""#, #""\ude00""#, #""\ud83d\u0041""#, #""\x""#, #""\u12""#, #""\u12G4""#, #""open"#, "\"tab\there\"",
    ])
    func malformedStringsAreErrors(json: String) {
        #expect(self.reason(json) != nil)
    }

    @Test func invalidUTF8InAStringIsAnError() {
        #expect(self.reason(bytes: [UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")]) != nil)
        #expect(self.reason(bytes: [UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\"")]) != nil)
    }

    @Test(arguments: ["[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{a:1}", "{\"a\":}", "[", "{", "]", "[1]]", "[1] x", "tru", "nul", "", "   "])
    func malformedStructureIsAnError(json: String) {
        #expect(self.reason(json) != nil)
    }

    @Test func reasonsSayWhereParsingStopped() {
        #expect(self.reason("[1, x]") == "unexpected character 'x' at byte 4")
        #expect(self.reason(#"{"a":1"#) == "expected ',' or '}' in an object at byte 6")
    }

    @Test func whitespaceAndAByteOrderMarkAreAllowed() throws {
        let object = try #require(try self.parse(" \t\r\n{ \"a\" : [ 1 , 2 ] }\n") as? [String: any Sendable])
        #expect((object["a"] as? [any Sendable])?.count == 2)
        let marked = try JSONValueParser.parse([0xEF, 0xBB, 0xBF] + Array("[true]".utf8), allowingFragments: false, removingNulls: false)
        #expect((marked as? [any Sendable])?.first as? Bool == true)
    }

    @Test func theLastOfRepeatedKeysWins() throws {
        let object = try #require(try self.parse(#"{"k":1,"k":2}"#) as? [String: any Sendable])
        #expect(object["k"] as? Int == 2)
    }

    @Test func fragmentsAreRefusedUnlessAllowed() throws {
        #expect(self.reason("1", fragments: false) != nil)
        #expect(self.reason("null", fragments: false) != nil)
        #expect(try self.parse("null") is JSONNull)
        #expect(try self.parse("{}", fragments: false) is [String: any Sendable])
    }

    @Test func nestingDeeperThanTheLimitIsAnErrorNotACrash() throws {
        let limit = JSONValueParser.maximumDepth
        _ = try self.parse(String(repeating: "[", count: limit) + String(repeating: "]", count: limit))
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(self.reason(tooDeep)?.contains("nested deeper") == true)
        #expect(self.reason(String(repeating: "{\"a\":", count: 100_000)) != nil)
    }

    @Test func nullsAreDroppedFromContainersWhenAsked() throws {
        let object = try #require(try self.parse(#"{"a":null,"b":[null,1,{"c":null}]}"#, removingNulls: true) as? [String: any Sendable])
        #expect(Set(object.keys) == ["b"])
        let list = try #require(object["b"] as? [any Sendable])
        #expect(list.count == 2)
        #expect((list[1] as? [String: any Sendable])?.isEmpty == true)
    }

    @Test func agreesWithJSONSerializationOnARealDocument() throws {
        let json = #"{"args":{"x":"1"},"headers":{"Accept":"*/*","Host":"127.0.0.1"},"origin":"127.0.0.1","url":"http://127.0.0.1/get?x=1","n":[1,2.5,-3,true,false,null]}"#
        let ours = try #require(try self.parse(json) as? [String: any Sendable])
        let theirs = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(Set(ours.keys) == Set(theirs.keys))
        #expect((ours["headers"] as? [String: any Sendable])?["Host"] as? String == (theirs["headers"] as? [String: Any])?["Host"] as? String)
        let numbers = try #require(ours["n"] as? [any Sendable])
        #expect(numbers[0] as? Int == 1)
        #expect(numbers[1] as? Double == 2.5)
        #expect(numbers[2] as? Int == -3)
        #expect(numbers[3] as? Bool == true)
        #expect(numbers[5] is JSONNull)
    }
}
