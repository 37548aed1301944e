import Foundation
import Testing

@testable import Lupine

/// `percentEscaped(_:)` against AFNetworking's `AFPercentEscapedStringFromString`.
@Suite struct RequestSerializationPercentEscapingTests {
    @Test func escapesGeneralAndSubDelimiters() {
        #expect(percentEscaped(":#[]@") == "%3A%23%5B%5D%40")
        #expect(percentEscaped("!$&'()*+,;=") == "%21%24%26%27%28%29%2A%2B%2C%3B%3D")
    }

    @Test func keepsQuestionMarkAndSlash() {
        #expect(percentEscaped("?/") == "?/")
        #expect(percentEscaped("a/b?c") == "a/b?c")
    }

    @Test func keepsUnreservedCharacters() {
        let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        #expect(percentEscaped(unreserved) == unreserved)
    }

    @Test func escapesSpaceAsPercentTwenty() {
        #expect(percentEscaped("a b") == "a%20b")
    }

    @Test func escapesPercentAgainSoEscapedInputIsEscapedTwice() {
        #expect(percentEscaped("%") == "%25")
        #expect(percentEscaped("a%20b") == "a%2520b")
        #expect(percentEscaped("%3A%2F") == "%253A%252F")
    }

    @Test func escapesOtherASCIIAndNonASCIIAsUpperCaseUTF8() {
        #expect(percentEscaped("\"<>\\^`{|}") == "%22%3C%3E%5C%5E%60%7B%7C%7D")
        #expect(percentEscaped("é") == "%C3%A9")
        #expect(percentEscaped("\n") == "%0A")
        #expect(percentEscaped("👴🏻") == "%F0%9F%91%B4%F0%9F%8F%BB")
    }

    @Test func emojiAcrossLongStringsSurviveIntact() throws {
        let emoji = String(repeating: "👴🏻👮🏽🇫🇷👨‍👩‍👧‍👦", count: 20)
        let mixed = String(repeating: "a😀b c🐶", count: 40) + emoji + String(repeating: "x", count: 49) + "🐱"
        for string in [emoji, mixed] {
            #expect(string.count > 50)
            let escaped = percentEscaped(string)
            #expect(escaped.allSatisfy { $0.isASCII })
            #expect(escaped.removingPercentEncoding == string)
        }
    }

    @Test func emptyStringStaysEmpty() {
        #expect(percentEscaped("") == "")
    }
}
